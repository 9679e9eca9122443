/// Random trace and span ids without a system call per request: wyrand
/// (Wang Yi's 64-bit generator) seeded once from the system generator.
/// One per event loop, touched only on its thread. Ids need to be unique,
/// not secret (W3C Trace Context, 3.2.2.3 and 3.2.2.4).
struct TraceIDSource {
    private var state: UInt64

    init(seed: UInt64 = UInt64.random(in: 1...UInt64.max)) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0xa076_1d64_78bd_642f
        let product = state.multipliedFullWidth(by: state ^ 0xe703_7ed1_a0b4_28db)
        return product.high ^ product.low
    }

    /// A value that is not zero: an all-zero id is invalid (3.2.2.3).
    mutating func nonZero() -> UInt64 {
        var value = next()
        while value == 0 { value = next() }
        return value
    }

    /// `value` as 16 lowercase hex digits at `buffer[offset...]`.
    static func writeHex(_ value: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        for position in 0..<16 {
            buffer[offset + position] = digit(UInt8(truncatingIfNeeded: value >> UInt64(60 - 4 * position)) & 0xF)
        }
    }

    /// `value` as 2 lowercase hex digits at `buffer[offset...]`.
    static func writeHexByte(_ value: UInt8, into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        buffer[offset] = digit(value >> 4)
        buffer[offset + 1] = digit(value & 0xF)
    }

    /// Computed rather than looked up: a table in a static array costs a
    /// lazy-initialisation check and a bounds check per digit.
    private static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ (nibble &- 10)
    }
}
