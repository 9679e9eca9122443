/// W3C Trace Context (https://www.w3.org/TR/trace-context/) for one
/// exchange: the caller's trace id (or a new one), our own span id as the
/// parent id we send back, the flags, and the caller's `tracestate`.
/// Kept as numbers and written as hex straight into the response head
/// (``write(into:)``): a 55-byte `traceparent` string would be a heap
/// allocation on every response, and a struct of integers costs no
/// reference counting where the exchange's terms are copied.
public struct TraceContext: Sendable, Equatable {
    let traceHigh: UInt64
    let traceLow: UInt64
    let span: UInt64
    let traceFlags: UInt8
    /// Passed along unchanged when it is sane and at most `maxStateLength`.
    public let traceState: String?

    /// The `traceparent` we send back: `00-<trace id>-<our span id>-<flags>`.
    public var traceparent: String { render(from: 0, count: Self.length) }
    /// 32 lowercase hex digits.
    public var traceID: String { render(from: 3, count: 32) }
    /// Ours: a new span for this response (3.2.2.4), 16 hex digits.
    public var spanID: String { render(from: 36, count: 16) }
    public var flags: String { render(from: 53, count: 2) }

    /// 3.3.1.5: a vendor may drop tracestate rather than exceed 512 characters.
    static let maxStateLength = 512
    /// `traceparent`'s length in version 00.
    static let length = 55

    /// From the request's fields; an absent or invalid `traceparent`
    /// starts a new trace (3.2.2: "the vendor MUST create a new trace-id")
    /// and then `tracestate` is dropped with it (3.3.1.1).
    static func make(from headers: HTTPFields, ids: inout TraceIDSource) -> TraceContext {
        let span = ids.nonZero()
        if let value = headers["traceparent"], let parent = TraceParent(value) {
            let states = headers.values(for: "tracestate")
            let state = states.isEmpty ? nil : states.joined(separator: ",")
            let kept = state.flatMap { $0.utf8.count <= maxStateLength && $0.utf8.allSatisfy(isStateByte) ? $0 : nil }
            return TraceContext(traceHigh: parent.traceHigh, traceLow: parent.traceLow, span: span,
                                traceFlags: parent.flags, traceState: kept)
        }
        // A new trace id: 128 random bits, the high half not zero so the whole is not (3.2.2.3).
        let (high, low) = (ids.nonZero(), ids.next())
        return TraceContext(traceHigh: high, traceLow: low, span: span, traceFlags: 0, traceState: nil)
    }

    /// Appends `traceparent`'s 55 bytes to a response head. We send
    /// version 00 whatever version the caller spoke (3.2.2.1: a vendor
    /// sends the version it implements).
    func write(into head: inout [UInt8]) {
        let start = head.count
        head.append(contentsOf: repeatElement(Self.zero, count: Self.length))
        head.withUnsafeMutableBufferPointer { buffer in
            let slice = UnsafeMutableBufferPointer(rebasing: buffer[start...])
            slice[2] = Self.dash
            TraceIDSource.writeHex(traceHigh, into: slice, at: 3)
            TraceIDSource.writeHex(traceLow, into: slice, at: 19)
            slice[35] = Self.dash
            TraceIDSource.writeHex(span, into: slice, at: 36)
            slice[52] = Self.dash
            TraceIDSource.writeHexByte(traceFlags, into: slice, at: 53)
        }
    }

    /// Bytes `offset..<offset + count` of `traceparent`, for logs, problem
    /// bodies and tests (not on the path of a response without them).
    private func render(from offset: Int, count: Int) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.length)
        write(into: &bytes)
        return String(decoding: bytes[offset..<offset + count], as: UTF8.self)
    }

    /// The trace id and flags of a valid `traceparent`, for tests and logs.
    static func parse(_ value: String) -> (traceID: String, flags: String)? {
        guard valid(value) else { return nil }
        let bytes = Array(value.utf8)
        return (String(decoding: bytes[3..<35], as: UTF8.self), String(decoding: bytes[53..<55], as: UTF8.self))
    }

    /// Whether `value` is a `traceparent` we accept (``TraceParent``).
    static func valid(_ value: String) -> Bool { TraceParent(value) != nil }

    static let dash = UInt8(ascii: "-")
    static let zero = UInt8(ascii: "0")

    /// Printable ASCII (3.3.1.3 list members are within 0x20–0x7E).
    private static func isStateByte(_ byte: UInt8) -> Bool { byte >= 0x20 && byte <= 0x7E }
}
