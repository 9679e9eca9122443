import Axiom
import Capabilities
import Glibc
import HTTPServer
import Sharding

/// One JSON line per request: time, request id, method, route pattern,
/// client address, status, body bytes and duration, plus `session`, the
/// first 16 hex digits of the SHA-256 of the bearer token, which is also the
/// start of the `token_hash` the database keeps for that session. Never the
/// token, a password or a body.
///
/// Written on every request, so the line is built as bytes straight into
/// the batched log output (no intermediate strings, the time's
/// date-and-second part formatted once a second); the shape is the same as
/// every other log line's.
struct AccessLog: Sendable {
    let enabled: Bool
    let output: LogOutput
    private let clock = SecondStamp()

    init(minimumLevel: ServerLogger.Level, output: LogOutput) {
        enabled = ServerLogger.Level.info >= minimumLevel
        self.output = output
    }

    func record(_ exchange: CompletedExchange) {
        guard enabled else { return }
        var line: [UInt8] = []
        line.reserveCapacity(320)
        line += #"{"time":""#.utf8
        clock.appendNow(to: &line, loop: exchange.eventLoop)
        line += #"","level":"info","event":"request","request_id":"#.utf8
        Self.appendString(exchange.requestID, to: &line)
        if !exchange.traceID.isEmpty {
            line += #","trace_id":""#.utf8
            line += exchange.traceID.utf8
            line.append(UInt8(ascii: "\""))
        }
        line += #","method":"#.utf8
        Self.appendString(exchange.method?.rawValue ?? "", to: &line)
        line += #","route":"#.utf8
        Self.appendString(exchange.route, to: &line)
        line += #","client":"#.utf8
        Self.appendString(exchange.clientAddress, to: &line)
        line += #","peer":"#.utf8
        Self.appendString(exchange.remoteAddress, to: &line)
        if let session = Self.sessionTag(exchange.requestHeaders["authorization"]) {
            line += #","session":""#.utf8
            line += session.utf8
            line.append(UInt8(ascii: "\""))
        }
        line += #","status":"#.utf8
        line += String(exchange.status.code).utf8
        line += #","bytes":"#.utf8
        line += String(exchange.bodyBytes).utf8
        line += #","duration_us":"#.utf8
        line += String(exchange.durationNanoseconds / 1_000).utf8
        line += "}\n".utf8
        output.buffered(line, loop: exchange.eventLoop)
    }

    /// A stable, non-reversible tag for the token in `Authorization: Bearer …`.
    static func sessionTag(_ authorization: String?) -> String? {
        guard let authorization, authorization.utf8.count > 7,
              authorization.prefix(7).lowercased() == "bearer " else { return nil }
        let token = authorization.dropFirst(7).trimmingSpaces
        guard !token.isEmpty else { return nil }
        return String(TokenDigest.sha256Hex(token).prefix(16))
    }

    /// A JSON string literal: copied as it is when nothing needs escaping
    /// (ids, methods, patterns and addresses practically never do).
    static func appendString(_ text: String, to line: inout [UInt8]) {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x80 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            line.append(UInt8(ascii: "\""))
            line += text.utf8
            line.append(UInt8(ascii: "\""))
        } else {
            line += JSONString.quoted(text).utf8
        }
    }
}

/// RFC 3339 UTC time with milliseconds, the `YYYY-MM-DDTHH:MM:SS.` part
/// formatted once per second by each event loop.
final class SecondStamp: Sendable {
    private let cached = LockShards(perLoop: { (second: -1, prefix: [UInt8]()) })

    func appendNow(to line: inout [UInt8], loop: Int) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let second = Int(now.tv_sec)
        let prefix = cached.withLock(loop: loop) { cached -> [UInt8] in
            if cached.second != second { cached = (second, Self.format(second)) }
            return cached.prefix
        }
        line += prefix
        let milliseconds = Int(now.tv_nsec) / 1_000_000
        line.append(UInt8(ascii: "0") + UInt8(milliseconds / 100))
        line.append(UInt8(ascii: "0") + UInt8(milliseconds / 10 % 10))
        line.append(UInt8(ascii: "0") + UInt8(milliseconds % 10))
        line.append(UInt8(ascii: "Z"))
    }

    private static func format(_ second: Int) -> [UInt8] {
        var seconds = time_t(second)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return Array(("\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).").utf8)
    }
}

private extension Substring {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
