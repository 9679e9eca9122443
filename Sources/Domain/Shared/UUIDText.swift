import FoundationEssentials

/// The canonical textual form of a UUID (8-4-4-4-12 hex digits), parsed and
/// written by hand: Foundation's `UUID(uuidString:)` goes through sscanf and
/// `uuidString` through sprintf, and ids are parsed and printed on every
/// request.
enum UUIDText {
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Accepts either case; nil for anything that is not exactly 36
    /// characters of hex digits and dashes in the canonical places.
    static func parse(_ text: String) -> UUID? {
        var text = text
        return text.withUTF8 { bytes -> UUID? in
            guard bytes.count == 36 else { return nil }
            var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let parsed = withUnsafeMutableBytes(of: &value) { out -> Bool in
                var index = 0
                var byte = 0
                while index < 36 {
                    if index == 8 || index == 13 || index == 18 || index == 23 {
                        guard bytes[index] == UInt8(ascii: "-") else { return false }
                        index += 1
                        continue
                    }
                    guard let high = nibble(bytes[index]), let low = nibble(bytes[index + 1]) else { return false }
                    out[byte] = high << 4 | low
                    byte += 1
                    index += 2
                }
                return true
            }
            return parsed ? UUID(uuid: value) : nil
        }
    }

    /// Lower-case canonical form.
    static func format(_ uuid: UUID) -> String {
        var value = uuid.uuid
        return withUnsafeBytes(of: &value) { bytes in
            String(unsafeUninitializedCapacity: 36) { out in
                var position = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        out[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    out[position] = hexDigits[Int(byte >> 4)]
                    out[position + 1] = hexDigits[Int(byte & 0x0F)]
                    position += 2
                }
                return position
            }
        }
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
