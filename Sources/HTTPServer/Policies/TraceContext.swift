/// W3C Trace Context (https://www.w3.org/TR/trace-context/) for one
/// exchange: the caller's trace id (or a new one), our own span id as the
/// parent id we send back, the flags, and the caller's `tracestate`.
/// Kept as the one `traceparent` string we send (rendered once, 55 bytes);
/// the ids are slices of it. Three strings per request (trace id, span id,
/// header) cost /products/{id} about 1 µs of its ~17 µs of CPU.
public struct TraceContext: Sendable {
    /// The `traceparent` we send back: `00-<trace id>-<our span id>-<flags>`.
    public let traceparent: String
    /// Passed along unchanged when it is sane and at most `maxStateLength`.
    public let traceState: String?

    /// 32 lowercase hex digits.
    public var traceID: Substring { traceparent.dropFirst(3).prefix(32) }
    /// Ours: a new span for this response (3.2.2.4), 16 hex digits.
    public var spanID: Substring { traceparent.dropFirst(36).prefix(16) }
    public var flags: Substring { traceparent.suffix(2) }

    /// 3.3.1.5: a vendor may drop tracestate rather than exceed 512 characters.
    static let maxStateLength = 512

    /// From the request's fields; an absent or invalid `traceparent`
    /// starts a new trace (3.2.2: "the vendor MUST create a new trace-id")
    /// and then `tracestate` is dropped with it (3.3.1.1).
    static func make(from headers: HTTPFields, ids: inout TraceIDSource) -> TraceContext {
        let span = ids.nonZero()
        if let value = headers["traceparent"], valid(value) {
            let states = headers.values(for: "tracestate")
            let state = states.isEmpty ? nil : states.joined(separator: ",")
            let kept = state.flatMap { $0.utf8.count <= maxStateLength && $0.utf8.allSatisfy(isStateByte) ? $0 : nil }
            let parent = value.utf8
            let traceparent = String(unsafeUninitializedCapacity: 55) { buffer in
                var index = 0
                for byte in parent.prefix(36) {  // "vv-<trace id>-"
                    buffer[index] = byte
                    index += 1
                }
                buffer[0] = zero
                buffer[1] = zero
                TraceIDSource.writeHex(span, into: buffer, at: 36)
                buffer[52] = dash
                buffer[53] = parent[parent.index(parent.startIndex, offsetBy: 53)]
                buffer[54] = parent[parent.index(parent.startIndex, offsetBy: 54)]
                return 55
            }
            return TraceContext(traceparent: traceparent, traceState: kept)
        }
        let (high, low) = (ids.nonZero(), ids.next())
        let traceparent = String(unsafeUninitializedCapacity: 55) { buffer in
            buffer[0] = zero
            buffer[1] = zero
            buffer[2] = dash
            TraceIDSource.writeHex(high, into: buffer, at: 3)
            TraceIDSource.writeHex(low, into: buffer, at: 19)
            buffer[35] = dash
            TraceIDSource.writeHex(span, into: buffer, at: 36)
            buffer[52] = dash
            buffer[53] = zero
            buffer[54] = zero
            return 55
        }
        return TraceContext(traceparent: traceparent, traceState: nil)
    }

    /// The trace id and flags of a valid `traceparent`, for tests and logs.
    static func parse(_ value: String) -> (traceID: String, flags: String)? {
        guard valid(value) else { return nil }
        let bytes = Array(value.utf8)
        return (String(decoding: bytes[3..<35], as: UTF8.self), String(decoding: bytes[53..<55], as: UTF8.self))
    }

    /// `version-traceid-parentid-flags` (3.2): lowercase hex only, ids not
    /// all zeros, version `ff` invalid; a later version may append fields
    /// after a `-`, version 00 may not.
    static func valid(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard bytes.count >= 55, bytes[2] == dash, bytes[35] == dash, bytes[52] == dash else { return false }
        let version = bytes[0..<2], traceID = bytes[3..<35], parentID = bytes[36..<52], flags = bytes[53..<55]
        guard [version, traceID, parentID, flags].allSatisfy({ $0.allSatisfy(isLowerHex) }) else { return false }
        guard version != [0x66, 0x66] else { return false }
        if version == [0x30, 0x30] {
            guard bytes.count == 55 else { return false }
        } else if bytes.count > 55, bytes[55] != dash {
            return false
        }
        return traceID.contains(where: { $0 != zero }) && parentID.contains(where: { $0 != zero })
    }

    private static let dash = UInt8(ascii: "-")
    private static let zero = UInt8(ascii: "0")

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }

    /// Printable ASCII (3.3.1.3 list members are within 0x20–0x7E).
    private static func isStateByte(_ byte: UInt8) -> Bool { byte >= 0x20 && byte <= 0x7E }
}
