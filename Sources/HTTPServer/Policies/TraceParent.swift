/// A caller's `traceparent` (W3C Trace Context 3.2), read in place into
/// numbers: `version-traceid-parentid-flags`, lowercase hex only, ids not
/// all zeros, version `ff` invalid; a later version may append fields after
/// a `-`, version 00 may not. Nil when any of that fails.
struct TraceParent {
    let traceHigh: UInt64
    let traceLow: UInt64
    let parent: UInt64
    let flags: UInt8

    init?(_ value: String) {
        var value = value
        guard let parsed = value.withUTF8({ Self.read($0) }) else { return nil }
        self = parsed
    }

    private init(traceHigh: UInt64, traceLow: UInt64, parent: UInt64, flags: UInt8) {
        self.traceHigh = traceHigh
        self.traceLow = traceLow
        self.parent = parent
        self.flags = flags
    }

    private static func read(_ bytes: UnsafeBufferPointer<UInt8>) -> TraceParent? {
        let dash = TraceContext.dash
        guard bytes.count >= TraceContext.length, bytes[2] == dash, bytes[35] == dash, bytes[52] == dash,
              let version = hex(bytes, 0, 2), let high = hex(bytes, 3, 16), let low = hex(bytes, 19, 16),
              let parent = hex(bytes, 36, 16), let flags = hex(bytes, 53, 2) else { return nil }
        guard version != 0xff else { return nil }
        if version == 0 {
            guard bytes.count == TraceContext.length else { return nil }
        } else if bytes.count > TraceContext.length, bytes[TraceContext.length] != dash {
            return nil
        }
        guard high | low != 0, parent != 0 else { return nil }
        return TraceParent(traceHigh: high, traceLow: low, parent: parent, flags: UInt8(flags))
    }

    /// `count` (at most 16) lowercase hex digits at `offset` as a number;
    /// nil for any other byte (3.2.2.2: uppercase is invalid).
    private static func hex(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: Int, _ count: Int) -> UInt64? {
        var value: UInt64 = 0
        for index in offset..<offset + count {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }
}
