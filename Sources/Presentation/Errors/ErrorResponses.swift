import Axiom
import Domain
import HTTPServer

/// Turns whatever a context throws into the HTTP error a client should see.
/// Domain refusals keep their stable codes (DomainProblem); storage that
/// cannot take writes is 503 `storage_unavailable` with `Retry-After`, and
/// nothing was applied, so a retry is safe. Anything else is rethrown and
/// becomes the server's 500 `internal_error`.
public enum ErrorResponses {
    public static func translate(_ error: any Error) -> any Error {
        switch error {
        case let error as HTTPError:
            return error
        case let error as DomainError:
            return DomainProblem.httpError(for: error)
        case let error as ValidationError:
            return DomainProblem.httpError(for: .validation(error))
        case let error as AuthenticationError:
            switch error {
            case .invalidCredentials, .invalidToken, .invalidTicket:
                // A ticket stands in for the token (RFC 6750 3.1's error names the credential's fault).
                var unauthorized = BearerToken.unauthorized(error.message,
                                                            error: error == .invalidCredentials ? nil : "invalid_token")
                unauthorized.code = error.code
                return unauthorized
            case .accountSuspended:
                return HTTPError(.forbidden, code: error.code, detail: error.message)
            case .tooManyAttempts(let seconds):
                return HTTPError(.tooManyRequests, code: error.code, detail: error.message,
                                 headers: ["Retry-After": String(seconds)])
            }
        case let error as PaymentError:
            return PaymentProblem.httpError(for: error)
        case let error as AccessDenied:
            return HTTPError(.forbidden, code: "forbidden", detail: error.reason)
        case AxiomError.capabilityUnavailable:
            return HTTPError(.serviceUnavailable, code: "storage_unavailable",
                             detail: "Storage cannot take writes right now; nothing was changed. Retry shortly.",
                             headers: ["Retry-After": "5"])
        default:
            return error
        }
    }

    /// Runs a handler body, translating what it throws.
    public static func handling(_ body: () async throws -> HTTPResponse) async throws -> HTTPResponse {
        do {
            return try await body()
        } catch {
            throw translate(error)
        }
    }
}
