/// HTTP-version = "HTTP/" DIGIT "." DIGIT (RFC 9112 2.3), as it opens a
/// status line and closes a request line.
enum VersionText {
    /// The major and minor digits, or nil when `bytes` is not a version.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> (major: Int, minor: Int)? {
        guard bytes.count == 8, bytes.starts(with: "HTTP/".utf8), bytes[6] == UInt8(ascii: "."),
              let major = decimalDigit(bytes[5]), let minor = decimalDigit(bytes[7])
        else { return nil }
        return (major, minor)
    }

    static func decimalDigit(_ byte: UInt8) -> Int? {
        (byte >= 0x30 && byte <= 0x39) ? Int(byte - 0x30) : nil
    }
}
