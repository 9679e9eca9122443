// `StorageCapability`'s transactions: `write`/`read` with the handle seen as
// `any StorageHandle`, so clients need not know the backend.
extension SQLiteStorage {
    public func writeTransaction<T: Sendable>(_ body: @escaping @Sendable (any StorageHandle) throws -> T) async throws -> T {
        try await write { try body($0) }
    }

    public func readTransaction<T: Sendable>(_ body: @escaping @Sendable (any StorageHandle) throws -> T) async throws -> T {
        try await read { try body($0) }
    }
}
