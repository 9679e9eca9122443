/// A connection lent to one `read` or `write` closure.
///
/// Valid only inside that closure (it is not `Sendable`, and it throws
/// `StorageError.handleOutOfScope` if kept and used later). In a write closure
/// every statement runs inside the batch's transaction, within a savepoint of
/// its own request: throwing from the closure rolls back exactly this
/// request's statements. In a read closure all queries see one consistent
/// snapshot. Transaction-control SQL (BEGIN, COMMIT, SAVEPOINT, …) is refused:
/// the storage layer owns transactions.
public final class SQLiteHandle {
    private let connection: SQLiteConnection
    /// This storage instance's `changeOrigin` (empty on readers).
    private let origin: String
    private var isValid = true
    /// The first error that meant "storage unavailable" (writer side: it
    /// aborts the whole batch even if the closure swallowed it).
    private(set) var unavailableError: SQLiteError?

    init(connection: SQLiteConnection, origin: String = "") {
        self.connection = connection
        self.origin = origin
    }

    func invalidate() { isValid = false }

    /// Runs one statement and returns the number of rows it changed.
    @discardableResult
    public func execute(_ sql: String, _ arguments: any StorageValueConvertible...) throws -> Int {
        try execute(sql, arguments: arguments.map(\.storageValue))
    }

    /// Runs one statement and returns the number of rows it changed.
    @discardableResult
    public func execute(_ sql: String, arguments: [StorageValue]) throws -> Int {
        _ = try perform(sql, arguments)
        return connection.changes
    }

    /// Runs one query and returns all its rows.
    public func query(_ sql: String, _ arguments: any StorageValueConvertible...) throws -> [StorageRow] {
        try query(sql, arguments: arguments.map(\.storageValue))
    }

    /// Runs one query and returns all its rows.
    public func query(_ sql: String, arguments: [StorageValue]) throws -> [StorageRow] {
        try perform(sql, arguments)
    }

    /// Runs one query and returns its first row, or nil when it has none.
    public func queryOne(_ sql: String, _ arguments: any StorageValueConvertible...) throws -> StorageRow? {
        try perform(sql, arguments.map(\.storageValue)).first
    }

    /// Runs one query and returns its first row, or nil when it has none.
    public func queryOne(_ sql: String, arguments: [StorageValue]) throws -> StorageRow? {
        try perform(sql, arguments).first
    }

    /// Runs several `;`-separated statements without arguments (e.g. DDL).
    public func executeScript(_ sql: String) throws {
        try checkValid()
        do {
            try connection.withTransactionControlDenied { try connection.exec(sql) }
        } catch let error as SQLiteError {
            throw classify(error)
        }
    }

    /// Inserts the outbox row in this request's savepoint: SQLite has one
    /// writer at a time, so AUTOINCREMENT's order is the commit order.
    public func recordChange(_ record: ChangeRecord) throws {
        let row = try queryOne(ChangeOutbox.sqliteInsert, arguments: [.text(record.kind.rawValue), .text(record.key),
                                                                      record.userID.map(StorageValue.text) ?? .null, .text(origin)])
        recordedSequence = try row?.get("seq") as Int64?
    }

    /// The sequence of the last outbox row this closure recorded (nil if none).
    public private(set) var recordedSequence: Int64?

    /// The rowid of the most recent successful INSERT on this connection.
    public var lastInsertRowID: Int64 { connection.lastInsertRowID }

    private func perform(_ sql: String, _ arguments: [StorageValue]) throws -> [StorageRow] {
        try checkValid()
        do {
            return try connection.withTransactionControlDenied { try connection.run(sql, arguments) }
        } catch StorageError.sqlite(let error) {
            throw classify(error)
        }
    }

    private func checkValid() throws {
        guard isValid else { throw StorageError.handleOutOfScope }
    }

    private func classify(_ error: SQLiteError) -> StorageError {
        guard error.meansUnavailable(forReader: connection.isReader) else { return .sqlite(error) }
        if unavailableError == nil { unavailableError = error }
        return .unavailable(reason: "SQLite reported \(error.message)", sqlite: error)
    }
}
