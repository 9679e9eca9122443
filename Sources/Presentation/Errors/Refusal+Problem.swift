import Domain
import FoundationEssentials
import HTTPServer

/// Any refusal's answer, for every feature alike: its category decides the
/// status, its code and message are the problem's `code` and `detail`, a
/// wait it names is `Retry-After`, and its members are written beside them
/// (a validation's `errors`, every failing field).
extension Refusal {
    /// The problem this refusal is answered with.
    public var problem: HTTPError {
        var problem = switch category {
        case .unauthenticated: BearerToken.unauthorized(message, error: nil)
        case .invalidToken: BearerToken.unauthorized(message, error: "invalid_token")
        default: HTTPError(RefusalProblem.status(of: category), code: code, detail: message)
        }
        problem.code = code
        if let retryAfterSeconds { problem.headers.set("Retry-After", String(retryAfterSeconds)) }
        problem.extensions = members.map(RefusalProblem.encoded)
        return problem
    }
}

/// What a thrown error is answered with when it is not an
/// `HTTPResponseError` itself: a refusal's problem, or nil (a 500).
public enum RefusalProblem {
    @Sendable public static func problem(for error: any Error) -> HTTPError? {
        (error as? any Refusal)?.problem
    }

    static func status(of category: RefusalCategory) -> HTTPStatus {
        switch category {
        case .badRequest: .badRequest
        case .unauthenticated, .invalidToken: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .conflict: .conflict
        case .preconditionFailed: .preconditionFailed
        case .invalid: .unprocessableContent
        case .tooManyRequests: .tooManyRequests
        case .unavailable: .serviceUnavailable
        }
    }

    static func encoded(_ member: ProblemMember) -> (String, String) {
        switch member {
        case .fieldErrors(let name, let errors):
            let items = errors.map { error in
                "{\"field\":\(JSONString.encode(error.field)),\"code\":\(JSONString.encode(error.code.rawValue)),"
                    + "\"message\":\(JSONString.encode(error.message))}"
            }
            return (name, "[" + items.joined(separator: ",") + "]")
        }
    }
}
