import Synchronization

/// Request ids: a client's `X-Request-Id` when it is sane (1–128 characters
/// of `A-Z a-z 0-9 - _ . :`), otherwise a process-unique id made of a random
/// per-process prefix and a counter (cheap enough for every request).
final class RequestIDGenerator: Sendable {
    private let prefixBytes: [UInt8]
    private static let hexAlphabet: [UInt8] = Array("0123456789abcdef".utf8)
    private let counter = Atomic<UInt64>(0)

    init() {
        let random = UInt64.random(in: 0...UInt64.max)  // SystemRandomNumberGenerator
        let hex = String(random & 0xFFFF_FFFF_FFFF, radix: 16)
        prefixBytes = Array((String(repeating: "0", count: 12 - hex.count) + hex).utf8)
    }

    func id(from clientValue: String?) -> String {
        if let clientValue, Self.isSane(clientValue) { return clientValue }
        let next = counter.add(1, ordering: .relaxed).newValue
        // prefix + "-" + hex counter, written in one go (no interpolation):
        // this runs for every request.
        let hexDigits = (64 - next.leadingZeroBitCount + 3) / 4
        return String(unsafeUninitializedCapacity: prefixBytes.count + 1 + hexDigits) { buffer in
            var index = 0
            for byte in prefixBytes {
                buffer[index] = byte
                index += 1
            }
            buffer[index] = UInt8(ascii: "-")
            index += 1
            var shift = (hexDigits - 1) * 4
            while shift >= 0 {
                buffer[index] = Self.hexAlphabet[Int((next >> UInt64(shift)) & 0xF)]
                index += 1
                shift -= 4
            }
            return index
        }
    }

    static func isSane(_ value: String) -> Bool {
        let utf8 = value.utf8
        guard !utf8.isEmpty, utf8.count <= 128 else { return false }
        return utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
                 UInt8(ascii: "."), UInt8(ascii: ":"):
                return true
            default: return false
            }
        }
    }
}
