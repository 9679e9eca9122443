/// A chunk-size line of the chunked transfer coding (RFC 9112 7.1):
/// hexadecimal digits, then optional chunk extensions, which are accepted
/// and not interpreted.
enum ChunkSizeLine {
    enum Failure: Error {
        /// More than 15 hexadecimal digits: larger than any body kept.
        case tooLarge
        case malformed(String)
    }

    static func parse(_ line: UnsafeRawBufferPointer) throws(Failure) -> Int {
        var size = 0
        var index = 0
        while index < line.count, let digit = ASCII.hexValue(line[index]) {
            guard index < 15 else { throw .tooLarge }
            size = size << 4 | Int(digit)
            index += 1
        }
        guard index > 0 else { throw .malformed("A chunk size is not a hexadecimal number.") }
        // chunk-ext = *( BWS ";" BWS ext-name [ BWS "=" BWS ext-value ] ).
        let extensions = UnsafeRawBufferPointer(rebasing: line[index...])
        if !extensions.isEmpty {
            let firstNonBlank = extensions.first { $0 != ASCII.space && $0 != ASCII.tab }
            guard firstNonBlank == UInt8(ascii: ";"), extensions.allSatisfy(ASCII.isFieldValue) else {
                throw .malformed("A chunk size is followed by something other than a chunk extension.")
            }
        }
        return size
    }
}
