import Axiom
import Domain
import UserClient

/// A session's profile feature: `/users/me`, a user record a customer may
/// read (their own), and sign-out. It holds no state (see `CartContext`).
public final class ProfileContext: Context {
    public let identity: ContextIdentity
    private let users: ClientHandle<UserClient>

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        users = try creation.client(UserClient.self)
    }

    /// A user record: any for an admin, only your own otherwise (another
    /// user's id is "not found", as for orders).
    public func user(_ id: UserID, for caller: Authentication) async throws -> User {
        let me = caller.user
        guard me.isAdmin || me.id == id else { throw EntityError.notFound(entity: "user", id: id.description) }
        return try await users.client.user(id)
    }

    /// The signed-in user's own name, email or password. A new email or
    /// password keeps this session and ends every other one of the user.
    /// `ifMatch` (the caller's `If-Match`) is asked of the user as it is
    /// now; the change then commits only while the user is still that
    /// value (compared in the write's transaction).
    public func updateProfile(_ patch: UserProfilePatch, for caller: Authentication, clientAddress: String,
                                          ifMatch: (@Sendable (User) -> Bool)? = nil) async throws -> User {
        var seen: User?
        if let ifMatch {
            let current = try await users.client.user(caller.user.id)
            guard ifMatch(current) else { throw EntityError.preconditionFailed(entity: "user") }
            seen = current
        }
        return try await users.send(.updateProfile(caller.user.id, patch, keepingSession: caller.sessionID,
                                                   clientAddress: clientAddress, unchangedFrom: seen))
    }

    /// Revokes this session's token; its live streams end (the users client
    /// announces the session's end), and the caller releases the session.
    public func signOut(_ caller: Authentication) async throws {
        try await users.send(.logout(sessionID: caller.sessionID))
    }
}
