import Axiom
import Domain

// What a context asks the users client to do; each answers its own type.
// The rules and errors are those of the client function each one runs.

extension UserClient {
    public struct Register: ClientAction {
        let request: NewUserRequest
        public func run(on users: isolated UserClient) async throws -> User { try await users.register(request) }
    }

    public struct EnsureAdmin: ClientAction {
        let name: String, email: String, password: String
        public func run(on users: isolated UserClient) async throws -> User {
            try await users.ensureAdmin(name: name, email: email, password: password)
        }
    }

    public struct Login: ClientAction {
        let email: String, password: String, clientAddress: String
        public func run(on users: isolated UserClient) async throws -> AuthenticatedSession {
            try await users.login(email: email, password: password, clientAddress: clientAddress)
        }
    }

    /// A one-use ticket for the live-update stream of `token`'s session.
    public struct IssueEventTicket: ClientAction {
        let token: String
        public func run(on users: isolated UserClient) async throws -> EventTicket {
            try await users.issueEventTicket(token: token)
        }
    }

    /// Uses a ticket up: who its session belongs to (`invalid_ticket` otherwise).
    public struct RedeemEventTicket: ClientAction {
        let ticket: String
        public func run(on users: isolated UserClient) async throws -> Authentication {
            try await users.redeemEventTicket(ticket)
        }
    }

    public struct Logout: ClientAction {
        let sessionID: String
        public func run(on users: isolated UserClient) async throws { try await users.logout(sessionID: sessionID) }
    }

    /// An admin sets status and/or role; suspending revokes the user's sessions.
    public struct AdminUpdate: ClientAction {
        let id: UserID, patch: UserAdminPatch
        public func run(on users: isolated UserClient) async throws -> User { try await users.adminUpdate(id, patch) }
    }

    /// The user changes their own name, email or password; with
    /// `unchangedFrom`, only while the user is still that value (`If-Match`).
    public struct UpdateProfile: ClientAction {
        let id: UserID, patch: UserProfilePatch, keepingSession: String?, clientAddress: String
        let unchangedFrom: User?
        public func run(on users: isolated UserClient) async throws -> User {
            try await users.updateProfile(id, patch, keepingSession: keepingSession, clientAddress: clientAddress,
                                          unchangedFrom: unchangedFrom)
        }
    }

    /// Deletes every session whose token has expired; answers how many were held.
    public struct RemoveExpiredSessions: ClientAction {
        public func run(on users: isolated UserClient) async throws -> Int { try await users.removeExpiredSessions() }
    }
}

extension ClientAction where Self == UserClient.Register {
    public static func register(_ request: NewUserRequest) -> Self { Self(request: request) }
}

extension ClientAction where Self == UserClient.EnsureAdmin {
    public static func ensureAdmin(name: String, email: String, password: String) -> Self {
        Self(name: name, email: email, password: password)
    }
}

extension ClientAction where Self == UserClient.Login {
    public static func login(email: String, password: String, clientAddress: String) -> Self {
        Self(email: email, password: password, clientAddress: clientAddress)
    }
}

extension ClientAction where Self == UserClient.IssueEventTicket {
    public static func issueEventTicket(token: String) -> Self { Self(token: token) }
}

extension ClientAction where Self == UserClient.RedeemEventTicket {
    public static func redeemEventTicket(_ ticket: String) -> Self { Self(ticket: ticket) }
}

extension ClientAction where Self == UserClient.Logout {
    public static func logout(sessionID: String) -> Self { Self(sessionID: sessionID) }
}

extension ClientAction where Self == UserClient.AdminUpdate {
    public static func adminUpdate(_ id: UserID, _ patch: UserAdminPatch) -> Self { Self(id: id, patch: patch) }
}

extension ClientAction where Self == UserClient.UpdateProfile {
    public static func updateProfile(_ id: UserID, _ patch: UserProfilePatch, keepingSession: String? = nil,
                                     clientAddress: String = "local", unchangedFrom: User? = nil) -> Self {
        Self(id: id, patch: patch, keepingSession: keepingSession, clientAddress: clientAddress,
             unchangedFrom: unchangedFrom)
    }
}

extension ClientAction where Self == UserClient.RemoveExpiredSessions {
    public static var removeExpiredSessions: Self { Self() }
}
