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

    /// A non-zero value as `digits` lowercase hex digits (16 or 32).
    mutating func hex(digits: Int) -> String {
        var words: [UInt64] = []
        repeat {
            words = (0..<(digits / 16)).map { _ in next() }
        } while words.allSatisfy { $0 == 0 }
        return String(unsafeUninitializedCapacity: digits) { buffer in
            var index = 0
            for word in words {
                for shift in stride(from: 60, through: 0, by: -4) {
                    buffer[index] = Self.alphabet[Int((word >> UInt64(shift)) & 0xF)]
                    index += 1
                }
            }
            return index
        }
    }

    private static let alphabet: [UInt8] = Array("0123456789abcdef".utf8)
}
