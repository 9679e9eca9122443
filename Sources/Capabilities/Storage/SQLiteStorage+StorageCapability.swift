// The backend-neutral entry points; `write`/`read` keep their concrete
// handle type for the clients not yet written against `StorageHandle`.
extension SQLiteStorage {
    public func writeTransaction<T: Sendable>(_ body: @escaping @Sendable (any StorageHandle) throws -> T) async throws -> T {
        try await write { try body($0) }
    }

    public func readTransaction<T: Sendable>(_ body: @escaping @Sendable (any StorageHandle) throws -> T) async throws -> T {
        try await read { try body($0) }
    }
}
