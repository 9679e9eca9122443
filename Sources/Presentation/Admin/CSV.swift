/// Comma-separated values as RFC 4180 writes them: records end in CRLF; a
/// field holding a comma, a double quote, CR or LF is enclosed in double
/// quotes with each double quote doubled; nil is an empty field.
enum CSV {
    static func record(_ fields: [String?]) -> String {
        fields.map { field($0 ?? "") }.joined(separator: ",") + "\r\n"
    }

    static func field(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0D || $0 == 0x0A }) else { return text }
        return "\"" + text.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }

    /// The `Content-Type` of an export, with the header row present
    /// (RFC 4180 section 3).
    static let contentType = "text/csv; charset=utf-8; header=present"
}
