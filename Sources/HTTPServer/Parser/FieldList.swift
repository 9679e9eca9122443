/// The elements of a comma-separated list field (RFC 9110 5.6.1), such as
/// Transfer-Encoding and Connection, gathered over every line of the
/// field, trimmed and lowercased. Empty elements stay (a caller that
/// counts elements drops them; one that looks for an option need not pay
/// for another array).
enum FieldList {
    static func elements(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map { ASCII.lowercased($0.trimmingWhitespace()) }
    }
}
