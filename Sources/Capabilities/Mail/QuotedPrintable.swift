/// Quoted-printable (RFC 2045 section 6.7) for text parts: line breaks
/// become CRLF, every other byte outside printable ASCII (and `=`) is
/// `=XX`, a space or tab before a line end is encoded, and lines are cut
/// with soft breaks to at most 76 characters.
enum QuotedPrintable {
    private static let hex = Array("0123456789ABCDEF".utf8)
    private static let maxLine = 76

    static func encode(_ text: String) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count + text.utf8.count / 8)
        for line in lines(of: text) {
            var length = 0
            for (index, byte) in line.enumerated() {
                let isLast = index == line.count - 1
                let literal = (byte >= 33 && byte <= 126 && byte != UInt8(ascii: "="))
                    || ((byte == 0x20 || byte == 0x09) && !isLast)
                let width = literal ? 1 : 3
                // Room for a soft break's `=` unless this is the line's end.
                if length + width > (isLast ? maxLine : maxLine - 1) {
                    output.append(contentsOf: [UInt8(ascii: "="), 0x0D, 0x0A])
                    length = 0
                }
                if literal {
                    output.append(byte)
                } else {
                    output.append(contentsOf: [UInt8(ascii: "="), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
                }
                length += width
            }
            output.append(contentsOf: [0x0D, 0x0A])
        }
        return output
    }

    /// The text's lines without their breaks (CRLF, LF or CR alone).
    private static func lines(of text: String) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var current: [UInt8] = []
        var afterCR = false
        for byte in text.utf8 {
            if afterCR, byte == 0x0A {
                afterCR = false
                continue
            }
            afterCR = byte == 0x0D
            if byte == 0x0D || byte == 0x0A {
                lines.append(current)
                current = []
            } else {
                current.append(byte)
            }
        }
        lines.append(current)
        return lines
    }
}
