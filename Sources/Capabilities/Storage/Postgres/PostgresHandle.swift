/// The PostgreSQL side of `StorageHandle`: statements with `?` placeholders
/// rewritten to `$n`, prepared per connection, values bound.
///
/// Valid only inside the closure it was lent to. In a write closure every
/// statement runs in the batch's transaction, inside this request's
/// savepoint. Unlike SQLite, PostgreSQL aborts the savepoint at the first
/// failed statement: a closure that catches a statement error cannot run
/// more statements (they fail with 25P02), and its request fails with that
/// first error even if the closure returns.
public final class PostgresHandle: StorageHandle {
    private let connection: PostgresConnection
    private var isValid = true
    /// The first error that is not this request's own to handle: a lost
    /// connection or a serialization failure / deadlock. It aborts and
    /// retries or fails the whole batch, even if the closure swallowed it.
    private(set) var batchError: PostgresError?
    /// The first statement that failed: after it the request's savepoint is
    /// aborted, so the request fails even if its closure returned.
    private(set) var failedStatement: PostgresError?
    /// This request's outbox rows, inserted by the writer just before the
    /// batch's COMMIT under the outbox lock (`ChangeOutbox`: the gap).
    private(set) var recorded: [ChangeRecord] = []

    init(connection: PostgresConnection) {
        self.connection = connection
    }

    func invalidate() { isValid = false }

    public var dialect: SQLDialect { .postgres }

    @discardableResult
    public func execute(_ sql: String, arguments: [StorageValue]) throws -> Int {
        try perform(sql, arguments).changes
    }

    public func query(_ sql: String, arguments: [StorageValue]) throws -> [StorageRow] {
        try perform(sql, arguments).rows
    }

    public func executeScript(_ sql: String) throws {
        guard isValid else { throw StorageError.handleOutOfScope }
        try Self.denyTransactionControl(sql)
        do {
            try connection.exec(sql)
        } catch {
            throw classify(error)
        }
    }

    public func recordChange(_ record: ChangeRecord) throws {
        guard isValid else { throw StorageError.handleOutOfScope }
        recorded.append(record)
    }

    private func perform(_ sql: String, _ arguments: [StorageValue]) throws -> PostgresResult {
        guard isValid else { throw StorageError.handleOutOfScope }
        try Self.denyTransactionControl(sql)
        let (rewritten, count) = PostgresPlaceholders.rewrite(sql)
        guard count == arguments.count else {
            throw StorageError.argumentCountMismatch(sql: sql, expected: count, given: arguments.count)
        }
        do {
            return try connection.run(rewritten, arguments)
        } catch {
            throw classify(error)
        }
    }

    private func classify(_ error: PostgresError) -> StorageError {
        if failedStatement == nil { failedStatement = error }
        if error.meansUnavailable || error.isRetryable || !connection.isHealthy {
            if batchError == nil { batchError = error }
        }
        if error.meansUnavailable || !connection.isHealthy {
            return .unavailable(reason: "PostgreSQL reported \(error.message)", sqlite: nil)
        }
        return .postgres(error)
    }

    /// The storage layer owns transactions (as `SQLiteHandle` refuses them).
    static func denyTransactionControl(_ sql: String) throws {
        let first = sql.split(whereSeparator: { $0.isWhitespace || $0 == ";" }).first?.uppercased() ?? ""
        let control: Set<String> = ["BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "START", "END", "ABORT"]
        if control.contains(first) {
            throw StorageError.postgres(PostgresError(
                sqlState: "25000", message: "transaction control is owned by the storage layer", sql: sql))
        }
    }
}
