import Contexts
import Domain
import HTTPServer

/// `GET`/`PATCH /users/me`, `GET /users/{id}` (your own; any for an admin)
/// and `DELETE /sessions/current` (sign out), bound to the session's
/// ProfileContext.
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
        router.delete("/sessions/current", policy: .accountData, profile.handler { [profile] request in
            await profile.endSession(try await request.context.signOut())
            return HTTPResponse(status: .noContent)
        })
    }
}
