/// What a client needs from storage: transactional writes acknowledged only
/// when durable, snapshot reads, and availability reporting (the members of
/// Axiom's `Capability` protocol). `SQLiteStorage` is the implementation.
public protocol StorageCapability: AnyObject, Sendable {
    var isAvailable: Bool { get }
    func checkAvailability() async -> Bool
    func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteHandle) throws -> T) async throws -> T
    func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteHandle) throws -> T) async throws -> T
}
