import Capabilities
import HTTPServer

/// One JSON line per request: time, request id, method, route pattern,
/// path, status, body bytes, duration and client address, plus `session`,
/// the first 16 hex digits of the SHA-256 of the bearer token, which is
/// also the start of the `token_hash` the database keeps for that session.
/// Never the token, a password or a body.
struct AccessLog: Sendable {
    let logger: ServerLogger

    func record(_ exchange: CompletedExchange) {
        guard logger.isEnabled(.info) else { return }
        var fields: [(String, String)] = [("request_id", exchange.requestID),
                                          ("method", exchange.method?.rawValue ?? ""),
                                          ("route", exchange.route),
                                          ("client", exchange.remoteAddress)]
        if let session = Self.sessionTag(exchange.requestHeaders["authorization"]) {
            fields.append(("session", session))
        }
        logger.log(.info, "request", fields,
                   numbers: [("status", exchange.status.code), ("bytes", exchange.bodyBytes),
                             ("duration_us", Int(exchange.durationNanoseconds / 1_000))])
    }

    /// A stable, non-reversible tag for the token in `Authorization: Bearer …`.
    static func sessionTag(_ authorization: String?) -> String? {
        guard let authorization, authorization.utf8.count > 7,
              authorization.prefix(7).lowercased() == "bearer " else { return nil }
        let token = authorization.dropFirst(7).trimmingSpaces
        guard !token.isEmpty else { return nil }
        return String(TokenDigest.sha256Hex(token).prefix(16))
    }
}

private extension Substring {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
