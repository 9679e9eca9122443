import Axiom
import Capabilities
import Domain

/// A user's own sign-in sessions, listed and ended one by one.
extension UserClient {
    /// The user's unexpired sessions, oldest first, `current` marked.
    public nonisolated func sessions(of user: UserID, current: String) async throws -> [SessionSummary] {
        let now = nowMilliseconds()
        return try await storage.storedRead { try UserStore.sessions($0, user: user, now: now) }
            .map { $0.marked(current: $0.id == current) }
    }

    /// Ends `user`'s session `sessionID` here and, through the change
    /// feed, on every replica (its live streams end). `session_not_found`
    /// when the user has no such session: another user's is not theirs.
    public func endSession(_ sessionID: String, of user: UserID) async throws {
        guard let ended = try await storage.durableWrite({
            try UserStore.deleteSession($0, id: sessionID, of: user)
        }) else { throw EntityError.notFound(entity: "session", id: sessionID) }
        forget([ended])
    }
}
