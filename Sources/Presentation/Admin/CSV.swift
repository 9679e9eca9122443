/// Comma-separated values as RFC 4180 writes them: records end in CRLF; a
/// field holding a comma, a double quote, CR or LF is enclosed in double
/// quotes with each double quote doubled; nil is an empty field.
///
/// An export is opened in a spreadsheet, which runs a cell that begins
/// with `=`, `+`, `-` or `@` (or a tab or CR before one) as a formula
/// (OWASP CSV Injection). So every `.text` cell — names, addresses,
/// emails, phones, references, event ids: anything a customer, an admin
/// or a provider chose, and, for one rule, the ids, times and states the
/// server writes — that begins with one of those is neutralised: a single
/// quote in front and the cell quoted. Only `.integer` cells, amounts and
/// counts the server itself formats, are written as they are, so a negative
/// amount stays a number.
enum CSV {
    enum Cell {
        case text(String?)
        case integer(Int64?)
    }

    static func record(_ cells: [Cell]) -> String {
        cells.map(field).joined(separator: ",") + "\r\n"
    }

    static func header(_ names: [String]) -> String {
        record(names.map { .text($0) })
    }

    static func field(_ cell: Cell) -> String {
        switch cell {
        case .integer(let value): value.map { String($0) } ?? ""
        case .text(let text): field(text ?? "")
        }
    }

    static func field(_ text: String) -> String {
        if let first = text.utf8.first, formulaStarts.contains(first) {
            return quoted("'" + text)
        }
        guard text.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0D || $0 == 0x0A }) else { return text }
        return quoted(text)
    }

    /// `=`, `+`, `-`, `@`, tab, CR.
    private static let formulaStarts: Set<UInt8> = [0x3D, 0x2B, 0x2D, 0x40, 0x09, 0x0D]

    private static func quoted(_ text: String) -> String {
        "\"" + text.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }

    /// The `Content-Type` of an export, with the header row present
    /// (RFC 4180 section 3).
    static let contentType = "text/csv; charset=utf-8; header=present"
}
