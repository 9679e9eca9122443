import FoundationEssentials

/// Version-4 UUIDs (RFC 9562, 5.4) from the system's random source.
///
/// Why not `UUID()`: on Linux Foundation's opens `/dev/urandom`, reads 16
/// bytes and closes it, three system calls and a file object per id.
/// `SystemRandomNumberGenerator` asks `getrandom(2)`, the same kernel
/// source, for 8 bytes a call: two calls an id, no file.
public enum RandomUUID {
    /// A new random id.
    public static func make() -> UUID {
        var generator = SystemRandomNumberGenerator()
        return make(high: generator.next(), low: generator.next())
    }

    /// The id of these 128 bits, with the version (4) and variant bits set.
    static func make(high: UInt64, low: UInt64) -> UUID {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { raw in
            raw.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        bytes.6 = (bytes.6 & 0x0F) | 0x40  // version 4
        bytes.8 = (bytes.8 & 0x3F) | 0x80  // the RFC's variant
        return UUID(uuid: bytes)
    }
}
