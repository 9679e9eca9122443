import Domain

/// What an attempt's answer means for its delivery (Standard Webhooks):
/// a 2xx succeeded; a 410 asks to be sent nothing more (the endpoint is
/// disabled); anything else failed and is tried again on the schedule (a
/// timeout, a refused or reset connection, TLS, a 3xx, which is not
/// followed, any 4xx or 5xx), honouring a `Retry-After` on 429, 502, 503
/// and 504 when it asks for longer.
enum WebhookVerdict: Equatable {
    case succeeded
    case gone
    /// `retryAfter`: the wait the receiver asked for, in milliseconds.
    case failed(retryAfter: Int64?)

    static let retryAfterStatuses: Set<Int> = [429, 502, 503, 504]

    static func of(status: Int, retryAfter header: String?, now: Int64) -> WebhookVerdict {
        switch status {
        case 200..<300: return .succeeded
        case 410: return .gone
        default:
            guard retryAfterStatuses.contains(status), let header else { return .failed(retryAfter: nil) }
            return .failed(retryAfter: RetryAfter.delay(header, now: now))
        }
    }

    /// The answer's status and the start of its body, as a delivery's log
    /// keeps it: one line of at most 200 bytes of text.
    static func describe(status: Int, body: [UInt8]) -> String {
        let line = String(decoding: body.prefix(200), as: UTF8.self).map { character -> Character in
            character.isNewline || character.unicodeScalars.contains { $0.properties.generalCategory == .control }
                ? " " : character
        }
        let snippet = line.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()
        return snippet.isEmpty ? "answered \(status)" : "answered \(status): \(String(snippet))"
    }
}
