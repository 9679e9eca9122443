import Domain
import FoundationEssentials
import HTTPServer

/// Maps domain refusals onto problem responses: the category decides the
/// status (invalid → 422, conflict → 409, not found → 404), the domain's
/// stable code is the problem `code`, and a validation lists every failing
/// field in `errors`.
public enum DomainProblem {
    public static func httpError(for error: DomainError) -> HTTPError {
        let status: HTTPStatus
        switch error.category {
        case .invalid: status = .unprocessableContent
        case .conflict: status = .conflict
        case .notFound: status = .notFound
        case .preconditionFailed: status = .preconditionFailed
        }
        var extensions: [(String, String)] = []
        if case .validation(let validation) = error {
            extensions.append(("errors", encodedFieldErrors(validation.errors)))
        }
        return HTTPError(status, code: error.code, detail: error.message, extensions: extensions)
    }

    private static func encodedFieldErrors(_ errors: [FieldError]) -> String {
        let items = errors.map { error in
            "{\"field\":\(JSONString.encode(error.field)),\"code\":\(JSONString.encode(error.code.rawValue)),"
                + "\"message\":\(JSONString.encode(error.message))}"
        }
        return "[" + items.joined(separator: ",") + "]"
    }
}
