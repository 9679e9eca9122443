// SQLiteHandle already has the protocol's members (its own variadic
// overloads take precedence over the protocol extension's on the concrete type).
extension SQLiteHandle: StorageHandle {
    public var dialect: SQLDialect { .sqlite }

    /// SQLite runs in this process: nothing to save by waiting.
    public func enqueue(_ sql: String, arguments: [StorageValue]) throws {
        _ = try execute(sql, arguments: arguments)
    }
}
