/// An error reported by PostgreSQL (or by libpq about the connection): the
/// SQLSTATE (PostgreSQL manual, appendix A), the message, and the SQL.
public struct PostgresError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Five characters, e.g. "23505"; "08000" when libpq lost the
    /// connection without a server-side code.
    public let sqlState: String
    public let message: String
    public let sql: String?

    public init(sqlState: String, message: String, sql: String? = nil) {
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
    }

    /// unique_violation: a UNIQUE or PRIMARY KEY constraint failed.
    public var isUniqueViolation: Bool { sqlState == "23505" }
    /// Class 23: integrity constraint violation.
    public var isConstraintViolation: Bool { sqlState.hasPrefix("23") }

    /// serialization_failure (CockroachDB reports every serializable
    /// conflict so) and deadlock_detected: the transaction did nothing and
    /// is safe to run again.
    public var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// lock_not_available: a statement waited on a row lock longer than the
    /// session's `lock_timeout`.
    public var isLockTimeout: Bool { sqlState == "55P03" }

    /// The server cannot be reached or cannot take the work: class 08
    /// (connection exception), 57P01-57P03 (shut down, crash recovery,
    /// cannot connect now), 53xxx (disk full, out of memory, too many
    /// connections), 58xxx (system error, e.g. an I/O error).
    public var meansUnavailable: Bool {
        sqlState.hasPrefix("08") || sqlState.hasPrefix("53") || sqlState.hasPrefix("58")
            || ["57P01", "57P02", "57P03"].contains(sqlState)
    }

    /// The code for a connection libpq reports broken without a SQLSTATE.
    static let connectionLost = "08000"

    public var description: String {
        var text = "PostgreSQL error \(sqlState): \(message)"
        if let sql { text += " [\(sql)]" }
        return text
    }
}
