import CLibPQ

/// One libpq connection. Not thread-safe: each is confined to one serial
/// Dispatch queue (a pool slot or the writer), so its blocking calls never
/// run on the event loop or the Swift concurrency pool.
///
/// Statements are prepared once per connection and then run by name
/// (`PQprepare` / `PQexecPrepared`); values are always bound parameters,
/// never spliced into the SQL text.
final class PostgresConnection {
    let connection: OpaquePointer
    /// SQL text (already in `$n` form) → prepared statement name.
    var prepared: [String: String] = [:]
    let statementCacheCapacity: Int
    /// Times this connection waited for the server, since the last `takeRoundTrips()`.
    var roundTrips = 0

    /// Connects (blocking). Throws `.unavailable` when the server cannot be reached.
    init(url: String, statementCacheCapacity: Int) throws {
        guard let connection = PQconnectdb(url) else {
            throw StorageError.unavailable(reason: "libpq could not allocate a connection", sqlite: nil)
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.message(connection)
            PQfinish(connection)
            throw StorageError.unavailable(reason: "cannot connect to PostgreSQL: \(message)", sqlite: nil)
        }
        // libpq prints server notices ("relation … already exists,
        // skipping") to stderr by default; they are not errors, drop them.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        self.connection = connection
        self.statementCacheCapacity = statementCacheCapacity
    }

    deinit { PQfinish(connection) }

    /// Set when a pipeline was left half read: the connection is unusable.
    var isBroken = false
    /// A statement went out whose answer nobody waited for (`sendWithoutWaiting`).
    private var answerUnread = false

    /// False once libpq has seen the connection break.
    var isHealthy: Bool { !isBroken && PQstatus(connection) == CONNECTION_OK }

    /// The round trips counted since the last call, for the storage metrics.
    func takeRoundTrips() -> Int {
        defer { roundTrips = 0 }
        return roundTrips
    }

    /// Runs `sql` (placeholders `$1`…) with `arguments` bound, as a prepared
    /// statement while the per-connection cache has room.
    func run(_ sql: String, _ arguments: [StorageValue]) throws(PostgresError) -> PostgresResult {
        dropUnreadAnswer()
        let parameters = PostgresParameters(arguments)
        defer { parameters.release() }
        roundTrips += 1
        if let name = try preparedName(for: sql, parameterCount: arguments.count) {
            return try check(parameters.withArrays { values, lengths, formats in
                PQexecPrepared(connection, name, Int32(arguments.count), values, lengths, formats, 0)
            }, sql: sql)
        }
        return try check(parameters.withArrays { values, lengths, formats in
            PQexecParams(connection, sql, Int32(arguments.count), nil, values, lengths, formats, 0)
        }, sql: sql)
    }

    /// Runs SQL without parameters, possibly several statements (migrations,
    /// transaction control). Uses the simple query protocol.
    func exec(_ sql: String) throws(PostgresError) {
        dropUnreadAnswer()
        roundTrips += 1
        _ = try check(PQexec(connection, sql), sql: sql)
    }

    /// Commits the open transaction, then, when `channel` is given,
    /// notifies it in a transaction of its own, in the same round trip.
    /// NOTIFY takes a cluster-wide lock from its transaction's pre-commit to
    /// its commit; in the writing transaction every writer in the cluster
    /// would queue on it across its COMMIT's WAL flush. The wake-up is not
    /// durable (a follower's poll catches a lost one), so its transaction
    /// does not wait for its own flush, and its failure fails nothing.
    func commit(notifying channel: String?) throws(PostgresError) {
        guard let channel else { return try exec("COMMIT") }
        dropUnreadAnswer()
        let sql = "COMMIT; SELECT set_config('synchronous_commit', 'off', true), pg_notify('\(channel)', '')"
        roundTrips += 1
        guard PQsendQuery(connection, sql) == 1 else {
            throw PostgresError(sqlState: PostgresError.connectionLost, message: Self.message(connection), sql: sql)
        }
        // One result for COMMIT, then the notification's (or none, when
        // COMMIT failed and ended the string); every one must be read.
        var commit: PostgresError??
        while let result = PQgetResult(connection) {
            do throws(PostgresError) {
                _ = try check(result, sql: sql)
                if commit == nil { commit = .some(nil) }
            } catch {
                if commit == nil { commit = .some(error) }
            }
        }
        guard let commit else {
            throw PostgresError(sqlState: PostgresError.connectionLost, message: Self.message(connection), sql: sql)
        }
        if let failure = commit { throw failure }
    }

    /// Sends `sql` (a read's COMMIT) and returns at once: its answer is
    /// read and dropped before the connection's next statement, so the
    /// round trip overlaps whatever the caller does next. Not counted in
    /// `roundTrips`: nobody waits for it. A failure shows as a broken
    /// connection at that next statement.
    func sendWithoutWaiting(_ sql: String) {
        dropUnreadAnswer()
        if PQsendQuery(connection, sql) == 1 { answerUnread = true } else { isBroken = true }
    }

    /// Reads what `sendWithoutWaiting` left unread, to its end.
    func dropUnreadAnswer() {
        guard answerUnread else { return }
        answerUnread = false
        while let result = PQgetResult(connection) { PQclear(result) }
    }

    private func preparedName(for sql: String, parameterCount: Int) throws(PostgresError) -> String? {
        if let name = prepared[sql] { return name }
        guard prepared.count < statementCacheCapacity else { return nil }
        let name = "axiom_\(prepared.count)"
        roundTrips += 1
        _ = try check(PQprepare(connection, name, sql, Int32(parameterCount), nil), sql: sql)
        prepared[sql] = name
        return name
    }

    func check(_ result: OpaquePointer?, sql: String) throws(PostgresError) -> PostgresResult {
        guard let result else {
            throw PostgresError(sqlState: PostgresError.connectionLost, message: Self.message(connection), sql: sql)
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return PostgresResult(result)
        default:
            let state = PQresultErrorField(result, Self.sqlStateField).map { String(cString: $0) }
            var message = PQresultErrorMessage(result).map { String(cString: $0) } ?? ""
            if message.isEmpty { message = Self.message(connection) }
            PQclear(result)
            let lost = !isHealthy
            throw PostgresError(sqlState: state ?? (lost ? PostgresError.connectionLost : "XX000"),
                                message: message.trimmingWhitespace(), sql: sql)
        }
    }

    // PG_DIAG_SQLSTATE is the character 'C' (postgres_ext.h), a macro Swift
    // does not import as a constant.
    private static let sqlStateField = Int32(UInt8(ascii: "C"))

    static func message(_ connection: OpaquePointer) -> String {
        PQerrorMessage(connection).map { String(cString: $0) }?.trimmingWhitespace() ?? "unknown libpq error"
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        var text = Substring(self)
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}
