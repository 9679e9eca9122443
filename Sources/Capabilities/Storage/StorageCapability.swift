/// What a client needs from storage, whichever backend holds it:
/// transactional writes acknowledged only when durable, snapshot reads, and
/// availability reporting (the members of Axiom's `Capability` protocol).
/// `SQLiteStorage` and `PostgresStorage` implement it.
///
/// Write closures may run more than once (SQLite re-runs a batch another
/// request aborted; PostgreSQL retries serialization failures and
/// deadlocks), so they must be pure over the handle.
public protocol StorageCapability: AnyObject, Sendable {
    var isAvailable: Bool { get }
    func checkAvailability() async -> Bool
    /// A durable write transaction (group-committed with concurrent ones).
    func writeTransaction<T: Sendable>(_ body: @escaping @Sendable (any StorageHandle) throws -> T) async throws -> T
    /// A durable write that also returns the newest outbox sequence its
    /// `recordChange` rows got (nil when it recorded none): what an
    /// `/events` id names, the same on every replica.
    func sequencedWriteTransaction<T: Sendable>(
        _ body: @escaping @Sendable (any StorageHandle) throws -> T) async throws -> (T, Int64?)
    /// Whether a write is queued for the writer now (one already running
    /// does not count): background maintenance (the catalogue's search
    /// index merge) submits its bounded steps only when none is, so that
    /// it never queues ahead of a request.
    var hasWritesWaiting: Bool { get }
    /// A read on one consistent snapshot.
    func readTransaction<T: Sendable>(_ body: @escaping @Sendable (any StorageHandle) throws -> T) async throws -> T
    /// Finishes queued writes and closes every connection.
    func close() async
}

extension SQLiteStorage {
    /// SQLite inserts the outbox row in the request's savepoint, so its
    /// sequence is known inside the closure (`RETURNING seq`).
    public func sequencedWriteTransaction<T: Sendable>(
        _ body: @escaping @Sendable (any StorageHandle) throws -> T) async throws -> (T, Int64?) {
        try await write { handle in (try body(handle), handle.recordedSequence) }
    }
}
