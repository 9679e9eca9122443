import Axiom
import Domain

/// The root context of one HTTP session: who is signed in. Route groups hang
/// their contexts below it with `makeDownstream(_:)`, so releasing the session
/// releases them too. Made only by the orchestrator (through the session
/// registry).
public actor SessionContext: Context {
    public enum Action: Sendable, Equatable {
        /// Records the user whose credentials a user context has verified.
        case signIn(UserID)
        case signOut
    }

    public nonisolated let identity: ContextIdentity
    public private(set) var userID: UserID?

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
    }

    /// Applies the action and returns who is signed in afterwards.
    public func send(_ action: Action) async throws -> UserID? {
        switch action {
        case .signIn(let user): userID = user
        case .signOut: userID = nil
        }
        return userID
    }

    public var isSignedIn: Bool { userID != nil }
}
