/// Whether a request's `Content-Type` says JSON: `application/json` or a
/// structured `application/*+json` type (RFC 6839 section 3.1), with no
/// charset other than UTF-8 (RFC 8259 section 8.1; the type defines none,
/// but `; charset=utf-8` is common and harmless). Compared case-insensitively
/// (RFC 9110 section 8.3.1).
///
/// Why it matters: a browser sends a cross-site `<form>` post as
/// `text/plain` (or urlencoded, or multipart) without a CORS preflight; a
/// server that reads any body as JSON lets another site register accounts
/// through a visitor's browser. Requiring JSON forces the preflight.
enum JSONMediaType {
    static func accepts(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        // What every JSON client sends, compared without splitting or
        // lowercasing: the cart's PUT runs this on every request.
        if contentType == "application/json" || contentType == "application/json; charset=utf-8" { return true }
        var parts = contentType.split(separator: ";", omittingEmptySubsequences: false).makeIterator()
        guard let type = parts.next().map(trimmedLowercase) else { return false }
        guard type == "application/json" || isStructuredJSON(type) else { return false }
        while let parameter = parts.next() {
            let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2 else { return false }
            guard trimmedLowercase(pair[0]) == "charset" else { continue }
            var value = trimmedLowercase(pair[1])
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            guard value == "utf-8" else { return false }
        }
        return true
    }

    /// `application/<name>+json` with a non-empty token name.
    private static func isStructuredJSON(_ type: String) -> Bool {
        guard type.hasPrefix("application/"), type.hasSuffix("+json") else { return false }
        let name = type.utf8.dropFirst("application/".utf8.count).dropLast("+json".utf8.count)
        return !name.isEmpty && name.allSatisfy(isTokenByte)
    }

    /// RFC 9110 section 5.6.2 tchar.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    private static func trimmedLowercase(_ text: Substring) -> String {
        var text = text[...]
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text.lowercased()
    }
}
