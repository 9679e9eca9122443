import Axiom

/// How a client written against `StorageHandle` reaches storage without
/// knowing the backend: the capability handle of whichever storage the
/// composition root registered (SQLite or PostgreSQL), read at each call so
/// a re-created instance takes over. Failures that mean "cannot serve this
/// now" become `AxiomError.capabilityUnavailable` (503 `storage_unavailable`).
public struct StorageAccess: Sendable {
    private enum Backend: Sendable {
        case sqlite(CapabilityHandle<SQLiteStorage>)
        case postgres(CapabilityHandle<PostgresStorage>)
    }

    private let backend: Backend

    public init(_ handle: CapabilityHandle<SQLiteStorage>) { backend = .sqlite(handle) }

    public init(_ handle: CapabilityHandle<PostgresStorage>) { backend = .postgres(handle) }

    /// The registered storage's name in the change outbox (`changes.origin`).
    public var changeOrigin: String {
        switch backend {
        case .sqlite(let handle): handle.current.configuration.changeOrigin
        case .postgres(let handle): handle.current.configuration.changeOrigin
        }
    }

    /// The PostgreSQL URL when the storage is PostgreSQL (a change feed
    /// listens for `NOTIFY` on a connection of its own to it), else nil.
    public var postgresURL: String? {
        switch backend {
        case .sqlite: nil
        case .postgres(let handle): handle.current.configuration.url
        }
    }

    /// Whether the storage in place now has a write queued
    /// (`StorageCapability.hasWritesWaiting`).
    public var hasWritesWaiting: Bool {
        switch backend {
        case .sqlite(let handle): handle.current.hasWritesWaiting
        case .postgres(let handle): handle.current.hasWritesWaiting
        }
    }

    /// A durable write transaction; refused at once while storage is known
    /// to be unavailable.
    public func durableWrite<R: Sendable>(_ body: @escaping @Sendable (any StorageHandle) throws -> R) async throws -> R {
        switch backend {
        case .sqlite(let handle): try await Self.write(handle, body)
        case .postgres(let handle): try await Self.write(handle, body)
        }
    }

    /// A durable write and the newest outbox sequence its `recordChange`
    /// rows got (nil when it recorded none), for updates that name it.
    public func sequencedWrite<R: Sendable>(
        _ body: @escaping @Sendable (any StorageHandle) throws -> R) async throws -> (R, Int64?) {
        let storage: any StorageCapability
        switch backend {
        case .sqlite(let handle):
            do { storage = try handle.available() } catch { throw AxiomError.capabilityUnavailable(String(reflecting: SQLiteStorage.self)) }
        case .postgres(let handle):
            do { storage = try handle.available() } catch { throw AxiomError.capabilityUnavailable(String(reflecting: PostgresStorage.self)) }
        }
        do {
            return try await storage.sequencedWriteTransaction(body)
        } catch {
            throw Self.runtimeError(error, of: type(of: storage))
        }
    }

    /// A read transaction on the instance in place now.
    public func storedRead<R: Sendable>(_ body: @escaping @Sendable (any StorageHandle) throws -> R) async throws -> R {
        switch backend {
        case .sqlite(let handle): try await Self.read(handle, body)
        case .postgres(let handle): try await Self.read(handle, body)
        }
    }

    private static func write<S: StorageCapability & Capability, R: Sendable>(
        _ handle: CapabilityHandle<S>, _ body: @escaping @Sendable (any StorageHandle) throws -> R
    ) async throws -> R {
        let instance: S
        do {
            instance = try handle.available()
        } catch {
            throw AxiomError.capabilityUnavailable(String(reflecting: S.self))
        }
        do {
            return try await instance.writeTransaction(body)
        } catch {
            throw runtimeError(error, of: S.self)
        }
    }

    private static func read<S: StorageCapability & Capability, R: Sendable>(
        _ handle: CapabilityHandle<S>, _ body: @escaping @Sendable (any StorageHandle) throws -> R
    ) async throws -> R {
        do {
            return try await handle.current.readTransaction(body)
        } catch {
            throw runtimeError(error, of: S.self)
        }
    }

    /// What a client sees of `error` from `storage`: "cannot serve this
    /// now" and "may or may not have been applied" as the runtime's errors
    /// (503 `storage_unavailable`, 503 `write_outcome_unknown`), the rest
    /// as it is.
    private static func runtimeError(_ error: any Error, of storage: Any.Type) -> any Error {
        guard let error = error as? StorageError else { return error }
        if error.meansUnavailable { return AxiomError.capabilityUnavailable(String(reflecting: storage)) }
        if case .outcomeUnknown = error { return AxiomError.capabilityOutcomeUnknown(String(reflecting: storage)) }
        return error
    }
}
