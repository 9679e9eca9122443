import Axiom

/// How clients reach storage: through their handle, so each call uses the
/// instance in place now (a re-created one after recovery), with storage
/// failures that mean "cannot serve this now" turned into
/// `AxiomError.capabilityUnavailable`, which the presentation answers with
/// 503 `storage_unavailable`. Every other error is rethrown unchanged.
extension CapabilityHandle where T == SQLiteStorage {
    /// A durable write transaction (see ``SQLiteStorage/write(_:)``); refused
    /// at once, without touching the disk, while storage is known to be
    /// unavailable.
    public func durableWrite<R: Sendable>(_ body: @escaping @Sendable (SQLiteHandle) throws -> R) async throws -> R {
        let instance: SQLiteStorage
        do {
            instance = try available()
        } catch {
            throw AxiomError.capabilityUnavailable(Self.storageName)
        }
        do {
            return try await instance.write(body)
        } catch let error as StorageError where error.meansUnavailable {
            throw AxiomError.capabilityUnavailable(Self.storageName)
        }
    }

    /// A read transaction on the instance in place now.
    public func storedRead<R: Sendable>(_ body: @escaping @Sendable (SQLiteHandle) throws -> R) async throws -> R {
        do {
            return try await current.read(body)
        } catch let error as StorageError where error.meansUnavailable {
            throw AxiomError.capabilityUnavailable(Self.storageName)
        }
    }

    static var storageName: String { String(reflecting: SQLiteStorage.self) }
}

extension StorageError {
    /// Unavailable storage, or an instance closed while being replaced.
    var meansUnavailable: Bool {
        if isUnavailable { return true }
        if case .closed = self { return true }
        return false
    }
}
