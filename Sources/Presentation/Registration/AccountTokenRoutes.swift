import Contexts
import Domain
import HTTPServer

/// `POST /password-resets` (ask for a reset link), `POST
/// /password-resets/complete` (set the password with it) and `POST
/// /email-verifications` (confirm an address with its link), bound to the
/// RegistrationContext: links arrive by mail and are followed signed out.
/// The reset routes take the `password-reset` limit per client address.
public struct AccountTokenRoutes: RouteGroup {
    public typealias Bound = RegistrationContext
    let registration: SharedBinding<RegistrationContext>
    let limit: RouteClassRateLimit

    public init(_ registration: RegistrationContext, limit: RouteClassRateLimit = RouteClassRateLimit(nil)) {
        self.registration = SharedBinding(registration)
        self.limit = limit
    }

    public func register(on router: inout Router) {
        router.post("/password-resets", policy: .accountData, registration.handler { [limit] request, registration in
            try await limit.guarding(request) {
                let body = try JSONBody.decode(ResetRequest.self, from: request)
                try await registration.requestPasswordReset(email: body.email)
                return try JSONBody.response(ResetAccepted(), status: .accepted)
            }
        })
        router.post("/password-resets/complete", policy: .accountData, registration.handler { [limit] request, registration in
            try await limit.guarding(request) {
                try await registration.completePasswordReset(try JSONBody.decode(PasswordResetCompletion.self, from: request))
                return HTTPResponse(status: .noContent)
            }
        })
        router.post("/email-verifications", policy: .accountData, registration.handler { request, registration in
            try await registration.confirmEmail(token: try JSONBody.decode(TokenBody.self, from: request).token)
            return HTTPResponse(status: .noContent)
        })
    }

    struct ResetRequest: Decodable {
        let email: String
    }

    struct TokenBody: Decodable {
        let token: String
    }

    /// The one answer to a reset request, whether the address has an
    /// account or not.
    struct ResetAccepted: Encodable {
        let status = "accepted"
        let detail = "If this address has an account, a link to set a new password is on its way; it works once, for a short time."
    }
}
