/// One field line of a header or trailer section (RFC 9112 5, RFC 9110
/// 5.1, 5.5), the same syntax in requests and responses: a token name, no
/// whitespace before the colon, a value of visible bytes, SP and HTAB with
/// optional whitespace around it, and no obs-fold.
enum FieldLine {
    /// The field's name, lowercased, and its trimmed value.
    static func parse(_ line: UnsafeRawBufferPointer) throws(HTTPParseError) -> (name: String, value: String) {
        if line[0] == ASCII.space || line[0] == ASCII.tab {
            throw .badRequest("Obsolete line folding (obs-fold) is not accepted.")
        }
        guard let colon = line.firstIndex(of: ASCII.colon) else {
            throw .badRequest("A header line has no colon.")
        }
        guard colon > 0 else { throw .badRequest("A header field has an empty name.") }
        let nameBytes = UnsafeRawBufferPointer(rebasing: line[0..<colon])
        if let last = nameBytes.last, last == ASCII.space || last == ASCII.tab {
            throw .badRequest("Whitespace between a header field name and the colon is not allowed.")
        }
        guard nameBytes.allSatisfy(ASCII.isToken) else {
            throw .badRequest("A header field name contains an invalid character.")
        }
        var start = colon + 1
        var end = line.count
        while start < end, line[start] == ASCII.space || line[start] == ASCII.tab { start += 1 }
        while end > start, line[end - 1] == ASCII.space || line[end - 1] == ASCII.tab { end -= 1 }
        let valueBytes = UnsafeRawBufferPointer(rebasing: line[start..<end])
        guard valueBytes.allSatisfy(ASCII.isFieldValue) else {
            throw .badRequest("A header field value contains NUL, CR, LF or another control character.")
        }
        // Lowercased straight into the String's storage: names up to 15
        // bytes (nearly all) are then small strings, held inline with no
        // allocation, and no temporary array as decoding a lazy map makes.
        let name = String(unsafeUninitializedCapacity: nameBytes.count) { buffer in
            for (index, byte) in nameBytes.enumerated() { buffer[index] = ASCII.lowercased(byte) }
            return nameBytes.count
        }
        return (name, String(decoding: valueBytes, as: UTF8.self))
    }
}
