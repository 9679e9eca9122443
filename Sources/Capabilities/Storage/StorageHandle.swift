/// What a read or write closure gets, on either backend: statements with
/// bound values (`?` placeholders, values as `StorageValue`s), rows copied out
/// as `StorageRow`s, and the dialect, for the few statements that differ.
///
/// `SQLiteHandle` and `PostgresHandle` implement it; store code written
/// against `any StorageHandle` runs on both (see docs/postgres.md for the
/// rules such code keeps: portable SQL, no use of a connection after a
/// failed statement, no `lastInsertRowID`).
public protocol StorageHandle: AnyObject {
    /// Which SQL dialect the statements run in.
    var dialect: SQLDialect { get }

    /// Runs one statement and returns the number of rows it changed.
    @discardableResult
    func execute(_ sql: String, arguments: [StorageValue]) throws -> Int

    /// Runs one query and returns all its rows.
    func query(_ sql: String, arguments: [StorageValue]) throws -> [StorageRow]

    /// Runs several `;`-separated statements without arguments (e.g. DDL).
    func executeScript(_ sql: String) throws

    /// Records a change in the `changes` outbox, committed with this
    /// write's other statements or not at all (see `ChangeOutbox` for how
    /// each backend keeps the sequence in commit order).
    func recordChange(_ record: ChangeRecord) throws
}

extension StorageHandle {
    /// Runs one statement and returns the number of rows it changed.
    @discardableResult
    public func execute(_ sql: String, _ arguments: any StorageValueConvertible...) throws -> Int {
        try execute(sql, arguments: arguments.map(\.storageValue))
    }

    /// Runs one query and returns all its rows.
    public func query(_ sql: String, _ arguments: any StorageValueConvertible...) throws -> [StorageRow] {
        try query(sql, arguments: arguments.map(\.storageValue))
    }

    /// Runs one query and returns its first row, or nil when it has none.
    public func queryOne(_ sql: String, _ arguments: any StorageValueConvertible...) throws -> StorageRow? {
        try query(sql, arguments: arguments.map(\.storageValue)).first
    }

    /// Runs one query and returns its first row, or nil when it has none.
    public func queryOne(_ sql: String, arguments: [StorageValue]) throws -> StorageRow? {
        try query(sql, arguments: arguments).first
    }
}
