import Axiom
import Domain
import UserClient

/// Deletes expired sign-in sessions every ten minutes, on one replica at a
/// time: the sessions are the database's, the same for every replica.
public struct ExpiredSessionsWork: JobWork {
    public static let remove = JobKind("sessions.remove_expired", every: .seconds(600))
    public static let kinds = [remove]

    let users: ClientHandle<UserClient>

    public init(_ creation: ContextCreation) throws {
        users = try creation.client(UserClient.self)
    }

    public func run(_ job: Job) async throws {
        let removed = try await users.call { try await $0.removeExpiredSessions() }
        if removed > 0 { JobEvents.record(JobEvent("expired_sessions_removed", numbers: [("sessions", removed)])) }
    }
}
