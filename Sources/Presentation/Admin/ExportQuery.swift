import Domain
import HTTPServer

/// An export's `?from=…&to=…`: both required, RFC 3339, the half-open
/// range `[from, to)`; every bad parameter is listed; no other is taken.
/// `from` after `to` is refused (`from`: `inconsistent`) rather than
/// answered with an empty file that looks like "nothing happened".
struct ExportQuery {
    let from: Timestamp
    let to: Timestamp

    static func from(_ request: HTTPRequest) throws -> ExportQuery {
        try KnownQuery.require(request, only: ["from", "to"])
        var errors: [FieldError] = []
        func time(_ name: String) -> Timestamp? {
            guard let text = request.query[name] else {
                errors.append(FieldError(field: name, code: .required, message: "\(name) is required"))
                return nil
            }
            guard let parsed = Timestamp(rfc3339: text) else {
                errors.append(FieldError(field: name, code: .invalidFormat, message: "\(name) must be an RFC 3339 time"))
                return nil
            }
            return parsed
        }
        let from = time("from"), to = time("to")
        guard let from, let to, errors.isEmpty else { throw ValidationError(errors) }
        guard from <= to else {
            throw ValidationError([FieldError(
                field: "from", code: .inconsistent, message: "from (\(from.rfc3339)) must not be after to (\(to.rfc3339))")])
        }
        return ExportQuery(from: from, to: to)
    }

    /// `orders-20261201T000000Z-20261202T000000Z.csv`: the range in the
    /// name, without the characters (`:`) a file system may refuse.
    func fileName(_ export: String) -> String {
        func compact(_ time: Timestamp) -> String {
            var text = time.rfc3339
            if let dot = text.firstIndex(of: ".") { text = String(text[..<dot]) + "Z" }
            return text.filter { $0 != "-" && $0 != ":" }
        }
        return "\(export)-\(compact(from))-\(compact(to)).csv"
    }
}
