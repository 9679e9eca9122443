import Axiom
import Domain
import UserClient

/// A session's account deletion (`DELETE /me`), across the users, cart,
/// wishlist and order clients:
/// 1. the users client checks the password and, in one commit, anonymises
///    the user (status `deleted`, the address freed), ends every session
///    and queues an `account.erase` job;
/// 2. this context erases what the other clients hold (`AccountErasureSteps`).
/// A crash after 1 leaves the erasure to the job (due a minute later,
/// retried until it succeeds); a crash before 1's commit changed nothing,
/// and the user, still signed in, can ask again. Each step is idempotent,
/// so the request and the job may both run. It holds no state.
public final class AccountDeletionContext: SessionFeature {
    public let identity: ContextIdentity
    public let caller: SessionCaller
    private let users: ClientHandle<UserClient>
    private let steps: AccountErasureSteps

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        caller = try SessionCaller.of(creation)
        users = try creation.client(UserClient.self)
        steps = try AccountErasureSteps(creation)
    }

    /// Deletes the caller's account; answers the session's id, for the
    /// caller to release the session. `invalid_credentials` for a wrong
    /// password (throttled like sign-ins), `last_admin`.
    public func deleteAccount(password: String, clientAddress: String) async throws -> String {
        let caller = try self.caller.current
        try await users.call { try await $0.deleteAccount(caller.user.id, password: password, clientAddress: clientAddress) }
        do {
            try await steps.erase(caller.user.id)
        } catch {
            // The deletion is committed and its queued job erases the
            // rest: the answer must not say that nothing happened.
        }
        return caller.sessionID
    }
}
