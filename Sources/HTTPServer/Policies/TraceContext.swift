/// W3C Trace Context (https://www.w3.org/TR/trace-context/) for one
/// exchange: the caller's trace id (or a new one), our own span id as the
/// parent id we send back, the flags, and the caller's `tracestate`.
public struct TraceContext: Sendable {
    public let traceID: String
    /// Ours: a new span for this response (3.2.2.4).
    public let spanID: String
    public let flags: String
    /// Passed along unchanged when it is sane and at most `maxStateLength`.
    public let traceState: String?

    /// The `traceparent` we send back.
    public var traceparent: String { "00-" + traceID + "-" + spanID + "-" + flags }

    /// 3.3.1.5: a vendor may drop tracestate rather than exceed 512 characters.
    static let maxStateLength = 512

    /// From the request's fields; an absent or invalid `traceparent`
    /// starts a new trace (3.2.2: "the vendor MUST create a new trace-id")
    /// and then `tracestate` is dropped with it (3.3.1.1).
    static func make(from headers: HTTPFields, ids: inout TraceIDSource) -> TraceContext {
        let spanID = ids.hex(digits: 16)
        if let value = headers["traceparent"], let parent = parse(value) {
            let states = headers.values(for: "tracestate")
            let state = states.isEmpty ? nil : states.joined(separator: ",")
            let kept = state.flatMap { $0.utf8.count <= maxStateLength && $0.utf8.allSatisfy(isStateByte) ? $0 : nil }
            return TraceContext(traceID: parent.traceID, spanID: spanID, flags: parent.flags, traceState: kept)
        }
        return TraceContext(traceID: ids.hex(digits: 32), spanID: spanID, flags: "00", traceState: nil)
    }

    /// `version-traceid-parentid-flags` (3.2): lowercase hex only, ids not
    /// all zeros, version `ff` invalid; a later version may append fields
    /// after a `-`, version 00 may not.
    static func parse(_ value: String) -> (traceID: String, flags: String)? {
        let bytes = Array(value.utf8)
        guard bytes.count >= 55, bytes[2] == dash, bytes[35] == dash, bytes[52] == dash else { return nil }
        let version = bytes[0..<2], traceID = bytes[3..<35], parentID = bytes[36..<52], flags = bytes[53..<55]
        guard [version, traceID, parentID, flags].allSatisfy({ $0.allSatisfy(isLowerHex) }) else { return nil }
        guard version != [0x66, 0x66] else { return nil }
        if version == [0x30, 0x30] {
            guard bytes.count == 55 else { return nil }
        } else if bytes.count > 55, bytes[55] != dash {
            return nil
        }
        guard traceID.contains(where: { $0 != zero }), parentID.contains(where: { $0 != zero }) else { return nil }
        return (String(decoding: traceID, as: UTF8.self), String(decoding: flags, as: UTF8.self))
    }

    private static let dash = UInt8(ascii: "-")
    private static let zero = UInt8(ascii: "0")

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }

    /// Printable ASCII (3.3.1.3 list members are within 0x20–0x7E).
    private static func isStateByte(_ byte: UInt8) -> Bool { byte >= 0x20 && byte <= 0x7E }
}
