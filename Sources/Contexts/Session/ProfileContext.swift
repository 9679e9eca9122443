import Axiom
import Domain
import UserClient

/// A session's profile feature: `/users/me`, a user record a customer may
/// read (their own), the user's sessions (listed, ended one by one), a new
/// verification link, and sign-out. It holds no state (see `CartContext`).
public final class ProfileContext: SessionFeature {
    public let identity: ContextIdentity
    public let caller: SessionCaller
    private let users: ClientHandle<UserClient>

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        caller = try SessionCaller.of(creation)
        users = try creation.client(UserClient.self)
    }

    /// A user record: any for an admin, only your own otherwise (another
    /// user's id is "not found", as for orders).
    /// The signed-in user, as of this request.
    public func me() throws -> User {
        try caller.current.user
    }

    public func user(_ id: UserID) async throws -> User {
        let me = try caller.current.user
        guard me.isAdmin || me.id == id else { throw EntityError.notFound(entity: "user", id: id.description) }
        return try await users.call { try await $0.user(id) }
    }

    /// The signed-in user's own name, email or password. A new email or
    /// password keeps this session and ends every other one of the user.
    /// `ifMatch` (the caller's `If-Match`) is asked of the user as it is
    /// now; the change then commits only while the user is still that
    /// value (compared in the write's transaction).
    public func updateProfile(_ patch: UserProfilePatch, clientAddress: String,
                              ifMatch: (@Sendable (User) -> Bool)? = nil) async throws -> User {
        let caller = try self.caller.current
        var seen: User?
        if let ifMatch {
            let current = try await users.call { try await $0.user(caller.user.id) }
            guard ifMatch(current) else { throw EntityError.preconditionFailed(entity: "user") }
            seen = current
        }
        return try await users.call { try await $0.updateProfile(caller.user.id, patch, keepingSession: caller.sessionID,
                                                   clientAddress: clientAddress, unchangedFrom: seen) }
    }

    /// The caller's unexpired sessions, oldest first, this one marked `current`.
    public func sessions() async throws -> [SessionSummary] {
        let caller = try self.caller.current
        return try await users.call { try await $0.sessions(of: caller.user.id, current: caller.sessionID) }
    }

    /// Ends one of the caller's sessions (this one too), on every replica;
    /// `session_not_found` for one that is not theirs.
    public func endSession(_ sessionID: String) async throws {
        let caller = try self.caller.current
        try await users.call { try await $0.endSession(sessionID, of: caller.user.id) }
    }

    /// Mails a new verification link to the caller's address (the earlier
    /// ones void); answers whether one was queued (not when the address is
    /// confirmed already or mail is off).
    public func resendVerification() async throws -> Bool {
        let caller = try self.caller.current
        return try await users.call { try await $0.resendVerification(caller.user.id) }
    }

    /// Revokes this session's token; its live streams end (the users client
    /// announces the session's end). Answers the session's id, for the
    /// caller to release the session.
    public func signOut() async throws -> String {
        let session = try caller.current.sessionID
        try await users.call { try await $0.logout(sessionID: session) }
        return session
    }
}
