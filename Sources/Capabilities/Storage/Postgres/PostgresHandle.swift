/// The PostgreSQL side of `StorageHandle`: statements with `?` placeholders
/// rewritten to `$n`, prepared per connection, values bound.
///
/// Valid only inside the closure it was lent to. In a write closure every
/// statement runs in the batch's transaction, inside this request's
/// savepoint. Unlike SQLite, PostgreSQL aborts the savepoint at the first
/// failed statement: a closure that catches a statement error cannot run
/// more statements (they fail with 25P02), and its request fails with that
/// first error even if the closure returns.
///
/// In a write closure, `enqueue`d statements wait and go to the server in
/// one pipeline with the next statement whose result is needed, or with
/// the savepoint's release when the closure returns: a request costs one
/// round trip per statement it reads the result of, plus one.
public final class PostgresHandle: StorageHandle {
    private let connection: PostgresConnection
    private var isValid = true
    /// Whether `enqueue` waits for a pipeline (the writer) or runs at once (a read).
    private let defers: Bool
    /// The batch's own statements (its BEGIN) that no statement has carried
    /// to the server yet; their failure is the batch's, never the request's.
    private var opening: [PostgresStatement]
    /// The results of the opening's statements, once a pipeline carried them.
    private(set) var opened: [PostgresResult] = []
    /// The round trip that carried the opening failed (on a read, with the
    /// connection broken: one the server had closed before the read began).
    /// A broken connection's failure cannot be pinned to one statement of
    /// the pipeline, so this does not try.
    private(set) var openingFailed = false
    /// The opening went to the server (a read ends its transaction then).
    var hasBegun: Bool { opening.isEmpty }
    /// This request's enqueued statements, not sent yet.
    private var deferred: [PostgresStatement] = []
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

    /// `opening`: the batch's first statements, sent with this request's
    /// first round trip (writer only).
    init(connection: PostgresConnection, defers: Bool, opening: [PostgresStatement] = []) {
        self.connection = connection
        self.defers = defers
        self.opening = opening
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

    public func enqueue(_ sql: String, arguments: [StorageValue]) throws {
        guard defers else {
            _ = try perform(sql, arguments)
            return
        }
        guard isValid else { throw StorageError.handleOutOfScope }
        deferred.append(try Self.statement(sql, arguments))
    }

    public func executeScript(_ sql: String) throws {
        guard isValid else { throw StorageError.handleOutOfScope }
        try Self.denyTransactionControl(sql)
        // A script runs alone (the simple query protocol takes no pipeline):
        // what waits goes first.
        if !opening.isEmpty || !deferred.isEmpty {
            _ = try send([])
        }
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
        let statement = try Self.statement(sql, arguments)
        if opening.isEmpty && deferred.isEmpty {
            do {
                return try connection.run(statement.sql, statement.arguments)
            } catch {
                throw classify(error)
            }
        }
        guard let result = try send([statement]).last else {
            throw StorageError.postgres(PostgresError(sqlState: "XX000", message: "no result", sql: sql))
        }
        return result
    }

    /// Sends what waits (the batch's opening, this request's deferred
    /// statements) and then `statements` in one pipeline; returns the
    /// results of `statements`. A failure is classified as `perform`'s is,
    /// except that one of the opening's fails the whole batch.
    private func send(_ statements: [PostgresStatement]) throws -> [PostgresResult] {
        let waiting = opening.count + deferred.count
        let openingCount = opening.count
        do {
            return Array(try sendWaiting(then: statements).dropFirst(waiting))
        } catch {
            if error.index < openingCount, batchError == nil { batchError = error.error }
            throw classify(error.error)
        }
    }

    /// The statements still waiting (the opening, then the deferred ones),
    /// handed over unsent: in a batch without savepoints they go with the
    /// next request's first round trip.
    func takeWaiting() -> [PostgresStatement] {
        defer {
            opening = []
            deferred = []
        }
        return opening + deferred
    }

    /// Runs the waiting statements and then the writer's savepoint
    /// `control` in one round trip, once the closure has returned
    /// (`succeeded`: it returned without a failed statement). A failure
    /// of one of this request's statements becomes its `failedStatement`
    /// (control did not run then: the writer rolls the savepoint back);
    /// a failure of `control` itself is thrown, for the whole batch. After
    /// a failed statement the request's deferred statements are dropped:
    /// its savepoint is rolled back anyway.
    func settle(succeeded: Bool, then control: [String]) throws(PostgresError) {
        if !succeeded || failedStatement != nil { deferred = [] }
        let mine = opening.count + deferred.count
        let openingCount = opening.count
        do {
            _ = try sendWaiting(then: control.map { PostgresStatement($0) })
        } catch {
            if error.index >= mine { throw error.error }
            if error.index < openingCount, batchError == nil { batchError = error.error }
            _ = classify(error.error)
        }
    }

    /// One pipeline of the opening, the deferred statements and then
    /// `statements`, all their results; what waited is sent either way.
    /// Keeps the opening's results (`opened`), and notes when the round
    /// trip that carried it failed.
    private func sendWaiting(then statements: [PostgresStatement]) throws(PostgresPipelineFailure) -> [PostgresResult] {
        let openingCount = opening.count
        let sent = opening + deferred + statements
        opening = []
        deferred = []
        do {
            let results = try connection.pipeline(sent)
            if openingCount > 0 { opened = Array(results.prefix(openingCount)) }
            return results
        } catch {
            if openingCount > 0 {
                openingFailed = true
                if error.completed.count >= openingCount { opened = Array(error.completed.prefix(openingCount)) }
            }
            throw error
        }
    }

    private static func statement(_ sql: String, _ arguments: [StorageValue]) throws -> PostgresStatement {
        let translated = try PostgresStatementTexts.translate(sql)
        guard translated.parameterCount == arguments.count else {
            throw StorageError.argumentCountMismatch(sql: sql, expected: translated.parameterCount, given: arguments.count)
        }
        return PostgresStatement(translated.sql, arguments)
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
