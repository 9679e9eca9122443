import Contexts
import Domain
import HTTPServer

/// `GET`/`PATCH /users/me`, `GET /users/{id}` (your own; any for an admin),
/// `GET /me/sessions` and `DELETE /me/sessions/{id}` (your sessions),
/// `POST /me/email-verifications` (a new verification link) and `DELETE
/// /sessions/current` (sign out), bound to the session's ProfileContext.
public struct ProfileRoutes: RouteGroup {
    public typealias Bound = ProfileContext
    let profile: SessionBinding<ProfileContext>

    public init(gate: SessionGate) {
        profile = SessionBinding(gate: gate)
    }

    public func register(on router: inout Router) {
        router.get("/users/me", policy: .accountRead, profile.handler { request in
            try JSONBody.response(try request.context.me())
        })
        // Wrong current passwords count in the sign-in throttle: its
        // refusals are the `login` policy's 429 here too.
        router.patch("/users/me", policy: .accountData, profile.handler { [login = profile.gate.login] request in
            let patch = try JSONBody.decode(UserProfilePatch.self, from: request.http)
            let ifMatch = ConditionalWrite.condition(request.http) { (user: User) in try JSONBody.encode(user) }
            return try await login.guarding {
                ConditionalWrite.response(try JSONBody.encode(try await request.context.updateProfile(
                    patch, clientAddress: request.http.clientAddress, ifMatch: ifMatch)))
            }
        })
        router.get("/users/{id}", policy: .accountData, profile.handler { request in
            try JSONBody.response(try await request.context.user(try request.http.parameter("id", as: UserID.self)))
        })
        router.get("/me/sessions", policy: .accountData, profile.handler { request in
            try JSONBody.response(SessionList(sessions: try await request.context.sessions()))
        })
        router.delete("/me/sessions/{id}", policy: .accountData, profile.handler { [profile] request in
            let id = request.http.parameters["id"] ?? ""
            try await request.context.endSession(id)
            await profile.endSession(id)
            return HTTPResponse(status: .noContent)
        })
        router.post("/me/email-verifications", policy: .accountData, profile.handler { request in
            try JSONBody.response(VerificationQueued(sent: try await request.context.resendVerification()),
                                  status: .accepted)
        })
        router.delete("/sessions/current", policy: .accountData, profile.handler { [profile] request in
            await profile.endSession(try await request.context.signOut())
            return HTTPResponse(status: .noContent)
        })
    }

    /// `{sessions: [...]}`, oldest first.
    struct SessionList: Encodable {
        let sessions: [SessionSummary]
    }

    /// `{sent}`: false when the address is confirmed already or mail is off.
    struct VerificationQueued: Encodable {
        let sent: Bool
    }
}
