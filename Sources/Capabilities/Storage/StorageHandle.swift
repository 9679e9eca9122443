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

    /// Runs one statement whose result the caller does not need (its row
    /// count, its rows). In a write on PostgreSQL it waits and travels with
    /// the next statement that is needed, or with the request's end, in one
    /// round trip; an error it raises fails the request then, as if
    /// `execute` had thrown it (which is why a statement whose error the
    /// closure catches and handles must not be enqueued). On SQLite, and in
    /// reads, it runs at once.
    func enqueue(_ sql: String, arguments: [StorageValue]) throws

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

    /// Runs one statement whose result the caller does not need (see the requirement).
    public func enqueue(_ sql: String, _ arguments: any StorageValueConvertible...) throws {
        try enqueue(sql, arguments: arguments.map(\.storageValue))
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
