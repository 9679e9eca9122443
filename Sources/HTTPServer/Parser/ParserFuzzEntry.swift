/// The one public door into the request parser for fuzzing: behind
/// `@_spi(Fuzzing)`, so it is not part of the library's API. The libFuzzer
/// target (Sources/HTTPParserFuzzer) and the seeded robustness test feed it
/// arbitrary bytes.
///
/// It drives `RequestParser` the way `HTTPConnection` does (hand it the
/// unconsumed bytes, drop what it consumed, call again after every event),
/// with the input arriving in pieces of `chunkSize` bytes (0 = all at once),
/// runs `RequestTarget.parse` on every head's target, and checks the
/// invariants that must hold for any input. It never traps by itself: a
/// broken invariant is reported in `violations` and the caller decides.
@_spi(Fuzzing)
public enum ParserFuzzing {
    /// What one feeding produced, rendered so that two feedings of the same
    /// bytes can be compared.
    public struct Outcome: Equatable, Sendable, CustomStringConvertible {
        /// One line per event, in order.
        public var events: [String] = []
        /// The status code of the `HTTPParseError` that ended parsing, if any.
        public var errorStatus: Int?
        /// The error's `code` and `detail` (empty when none).
        public var errorCode = ""
        public var errorDetail = ""
        /// Bytes still buffered, unconsumed, when the input ran out.
        public var unconsumed = 0
        /// Broken invariants; empty for a correct parser.
        public var violations: [String] = []

        /// Whether two feedings of the same bytes behaved the same: the same
        /// events and the same error; the bytes left over are compared only
        /// without an error (on an error they depend on how much had arrived).
        public func sameResult(as other: Outcome) -> Bool {
            events == other.events && errorStatus == other.errorStatus && errorCode == other.errorCode
                && errorDetail == other.errorDetail && (errorStatus != nil || unconsumed == other.unconsumed)
        }

        public var description: String {
            var lines = events
            if let errorStatus { lines.append("error \(errorStatus) \(errorCode): \(errorDetail)") }
            lines.append("unconsumed \(unconsumed)")
            lines += violations.map { "VIOLATION " + $0 }
            return lines.joined(separator: "\n")
        }
    }

    /// Statuses a parse error may carry.
    public static let allowedErrorStatuses: Set<Int> = [400, 413, 414, 431, 501, 505]

    /// Limits small enough that a fuzzer reaches every limit branch quickly.
    public static let tinyLimits = ParserLimits(maxRequestLineBytes: 48, maxHeaderBytes: 160,
                                                maxHeaderCount: 6, maxBodyBytes: 64)

    public static func feed(_ input: UnsafeRawBufferPointer, chunkSize: Int,
                            limits: ParserLimits = ParserLimits()) -> Outcome {
        let cuts = chunkSize <= 0 ? [] : Array(stride(from: chunkSize, to: input.count, by: chunkSize))
        return feed(input, cuts: cuts, limits: limits)
    }

    /// Feeds `input` arriving in pieces that end at `cuts` (ascending offsets;
    /// the last piece ends at the end of the input).
    public static func feed(_ input: UnsafeRawBufferPointer, cuts: [Int],
                            limits: ParserLimits = ParserLimits()) -> Outcome {
        var outcome = Outcome()
        var parser = RequestParser(limits: limits)
        var buffer: [UInt8] = []
        var arrived = 0
        var framing: BodyFraming? = nil
        // Each call returns at most one event; bound the calls so that a
        // parser that stopped making progress is reported, not looped on.
        var callBudget = 4 * input.count + 64
        for cut in cuts + [input.count] {
            let next = min(max(cut, arrived), input.count)
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[arrived..<next]))
            arrived = next
            calls: while true {
                callBudget -= 1
                if callBudget < 0 {
                    outcome.violations.append("no progress: more parse calls than the input can justify")
                    return outcome
                }
                let result: Result<(consumed: Int, event: RequestParser.Event?), HTTPParseError> =
                    buffer.withUnsafeBytes { bytes in
                        do throws(HTTPParseError) { return .success(try parser.parse(bytes)) } catch { return .failure(error) }
                    }
                switch result {
                case .failure(let error):
                    outcome.errorStatus = error.status.code
                    outcome.errorCode = error.code
                    outcome.errorDetail = error.detail
                    if !allowedErrorStatuses.contains(error.status.code) {
                        outcome.violations.append("parse error with status \(error.status.code)")
                    }
                    outcome.unconsumed = buffer.count
                    return outcome
                case .success(let (consumed, event)):
                    guard consumed >= 0, consumed <= buffer.count else {
                        outcome.violations.append("consumed \(consumed) of \(buffer.count) buffered bytes")
                        return outcome
                    }
                    buffer.removeFirst(consumed)
                    guard let event else { break calls }  // needs more bytes
                    switch event {
                    case .head(let head):
                        if framing != nil { outcome.violations.append("a second head before the body") }
                        framing = head.framing
                        outcome.events.append(render(head, limits: limits, violations: &outcome.violations))
                    case .body(let body, let trailers):
                        switch framing {
                        case nil:
                            outcome.violations.append("a body without a head")
                        case .none?:
                            if !body.isEmpty { outcome.violations.append("a body on a request framed without one") }
                        case .length(let length)?:
                            if body.count != length { outcome.violations.append("body of \(body.count) bytes, declared \(length)") }
                        case .chunked?:
                            break
                        }
                        if body.count > limits.maxBodyBytes { outcome.violations.append("body over the limit: \(body.count)") }
                        if trailers.count > limits.maxHeaderCount { outcome.violations.append("too many trailers: \(trailers.count)") }
                        framing = nil
                        outcome.events.append("BODY \(body.count) \(fnv1a(body)) trailers "
                                              + trailers.map { "\($0.name)=\($0.value)" }.joined(separator: "|"))
                    }
                }
            }
        }
        outcome.unconsumed = buffer.count
        return outcome
    }

    private static func render(_ head: RequestHead, limits: ParserLimits, violations: inout [String]) -> String {
        if head.target.utf8.count > limits.maxRequestLineBytes { violations.append("target longer than the request-line limit") }
        if head.headers.count > limits.maxHeaderCount { violations.append("more fields than maxHeaderCount") }
        if head.version == .http1_1 && head.headers.values(for: "host").count != 1 { violations.append("HTTP/1.1 head without exactly one Host") }
        if head.headers.values(for: "host").count > 1 { violations.append("head with two Hosts") }
        let hasLength = head.headers.contains("content-length"), hasCoding = head.headers.contains("transfer-encoding")
        if hasLength && hasCoding { violations.append("head with both Content-Length and Transfer-Encoding") }
        switch head.framing {
        case .chunked where !hasCoding: violations.append("chunked framing without Transfer-Encoding")
        case .length(let length) where length > limits.maxBodyBytes || length <= 0: violations.append("declared length \(length) accepted")
        default: break
        }
        for field in head.headers {
            if field.name.isEmpty || !field.name.utf8.allSatisfy(ASCII.isToken) { violations.append("field name not a token") }
            if field.value.utf8.contains(where: { $0 == 0 || $0 == ASCII.cr || $0 == ASCII.lf }) { violations.append("NUL/CR/LF in a value") }
        }
        var line = "HEAD \(head.method) \(head.target) \(head.version) \(head.framing) keepAlive=\(head.keepAlive) \(head.expectation) "
            + head.headers.map { "\($0.name)=\($0.value)" }.joined(separator: "|")
        do {
            let target = try RequestTarget.parse(head.target)
            if target.path.utf8.contains(0) || target.segments.contains(where: { $0.utf8.contains(0) }) {
                violations.append("a decoded path with NUL")
            }
            line += " -> path \(target.path) segments \(target.segments) query "
                + target.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        } catch {
            if error.status.code != 400 { violations.append("target error with status \(error.status.code)") }
            line += " -> target error \(error.status.code) \(error.code)"
        }
        return line
    }

    private static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}
