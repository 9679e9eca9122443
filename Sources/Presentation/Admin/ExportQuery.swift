import Domain
import HTTPServer

/// An export's `?from=…&to=…`: both required, RFC 3339, the half-open
/// range `[from, to)`; every bad parameter is listed; no other is taken.
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
        guard let from, let to, errors.isEmpty else { throw DomainError.validation(ValidationError(errors)) }
        return ExportQuery(from: from, to: to)
    }
}
