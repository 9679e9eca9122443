import Domain
import FoundationEssentials
import HTTPServer

/// A domain refusal's answer: the category decides the status (invalid →
/// 422, conflict → 409, not found → 404, precondition → 412), the domain's
/// stable code is the problem `code`, and a validation lists every failing
/// field in `errors`.
extension DomainError: HTTPResponseError {
    public var httpError: HTTPError? { problem }

    /// The problem this refusal is answered with.
    var problem: HTTPError {
        let status: HTTPStatus = switch category {
        case .invalid: .unprocessableContent
        case .conflict: .conflict
        case .notFound: .notFound
        case .preconditionFailed: .preconditionFailed
        }
        var extensions: [(String, String)] = []
        if case .validation(let validation) = self {
            extensions.append(("errors", Self.encodedFieldErrors(validation.errors)))
        }
        return HTTPError(status, code: code, detail: message, extensions: extensions)
    }

    private static func encodedFieldErrors(_ errors: [FieldError]) -> String {
        let items = errors.map { error in
            "{\"field\":\(JSONString.encode(error.field)),\"code\":\(JSONString.encode(error.code.rawValue)),"
                + "\"message\":\(JSONString.encode(error.message))}"
        }
        return "[" + items.joined(separator: ",") + "]"
    }
}

extension ValidationError: HTTPResponseError {
    public var httpError: HTTPError? { DomainError.validation(self).problem }
}
