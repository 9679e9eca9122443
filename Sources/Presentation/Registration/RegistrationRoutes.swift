import Contexts
import Domain
import FoundationEssentials
import HTTPServer

/// `POST /users` (register) and `POST /sessions` (sign in), bound to the
/// RegistrationContext: what anyone may do without a token.
public struct RegistrationRoutes: RouteGroup {
    public typealias Bound = RegistrationContext
    let registration: SharedBinding<RegistrationContext>
    let login: LoginRateLimit
    let limits: RouteClassRateLimits

    public init(_ registration: RegistrationContext, limits: RouteClassRateLimits = RouteClassRateLimits()) {
        self.registration = SharedBinding(registration)
        self.limits = limits
        login = LoginRateLimit(quota: registration.loginPolicy.quota, windowSeconds: registration.loginPolicy.windowSeconds)
    }

    public func register(on router: inout Router) {
        router.post("/users", policy: .accountData, registration.handler { [limits] request, registration in
            try await limits.registration.guarding(request) {
                try await registration.register(try JSONBody.decode(NewUserRequest.self, from: request))
                return try JSONBody.response(registration.mailEnabled ? RegistrationAccepted.mailed : .direct,
                                             status: .accepted)
            }
        })
        router.post("/sessions", policy: .accountData, registration.handler { [login, limits] request, registration in
            try await limits.signIn.guarding(request) {
                let body = try JSONBody.decode(LoginRequest.self, from: request)
                return try await login.guarding {
                    let session = try await registration.signIn(email: body.email, password: body.password,
                                                                clientAddress: request.clientAddress)
                    return try JSONBody.response(SessionBody(session), status: .created,
                                                 headers: ["Cache-Control": "no-store"])
                }
            }
        })
    }

    /// The one answer to a registration, whether the email was new or
    /// taken. With mail on, a new address gets a verification link and a
    /// taken one a mail to its owner, so the answer points to the inbox.
    struct RegistrationAccepted: Encodable {
        let status = "accepted"
        let detail: String

        static let direct = RegistrationAccepted(
            detail: "If this email address had no account, it has one now: sign in with it (POST /sessions).")
        static let mailed = RegistrationAccepted(
            detail: "We sent a message to this address: follow it to confirm the address, or read why not.")
    }

    struct LoginRequest: Decodable {
        let email: String
        let password: String
    }

    /// `{token, expires_at, user}`.
    struct SessionBody: Encodable {
        let token: String
        let expiresAt: Timestamp
        let user: User

        init(_ session: AuthenticatedSession) {
            token = session.token
            expiresAt = session.expiresAt
            user = session.user
        }

        /// In openapi.yaml's order (the encoder writes members in this order).
        enum CodingKeys: String, CodingKey {
            case token
            case expiresAt = "expires_at"
            case user
        }
    }
}
