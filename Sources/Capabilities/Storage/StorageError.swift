import CSQLite

/// An error reported by SQLite: its result codes and message, and the SQL
/// that failed when there was one.
public struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The extended result code (e.g. 2067 = SQLITE_CONSTRAINT_UNIQUE).
    public let extendedCode: Int32
    /// The primary result code (e.g. 19 = SQLITE_CONSTRAINT).
    public var code: Int32 { extendedCode & 0xFF }
    public let message: String
    public let sql: String?

    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    public var isConstraintViolation: Bool { code == SQLITE_CONSTRAINT }
    /// A UNIQUE or PRIMARY KEY constraint failed (e.g. a duplicate email).
    public var isUniqueViolation: Bool {
        extendedCode == SQLiteError.constraintUnique || extendedCode == SQLiteError.constraintPrimaryKey
    }
    public var isForeignKeyViolation: Bool { extendedCode == SQLiteError.constraintForeignKey }

    // Extended codes, spelled out: sqlite3.h defines them as shifted macros.
    static let constraintForeignKey = SQLITE_CONSTRAINT | (3 << 8)
    static let constraintPrimaryKey = SQLITE_CONSTRAINT | (6 << 8)
    static let constraintUnique = SQLITE_CONSTRAINT | (8 << 8)

    /// True for the result codes that mean "the storage medium cannot take
    /// writes": disk full, I/O error, read-only file or file system, cannot
    /// open, permission denied. `reader` narrows this for read-only
    /// connections, where SQLITE_READONLY is an ordinary misuse error.
    func meansUnavailable(forReader reader: Bool) -> Bool {
        switch code {
        case SQLITE_IOERR, SQLITE_CANTOPEN: true
        case SQLITE_FULL, SQLITE_READONLY, SQLITE_PERM: !reader
        default: false
        }
    }

    public var description: String {
        let codeName = String(cString: sqlite3_errstr(extendedCode))
        var text = "SQLite error \(extendedCode) (\(codeName)): \(message)"
        if let sql { text += " [\(sql)]" }
        return text
    }
}

/// Every error the storage capability throws.
public enum StorageError: Error, Sendable, CustomStringConvertible {
    /// The storage medium cannot take writes (disk full, read-only, directory
    /// or file gone, I/O error, cannot open). The HTTP layer maps this to 503
    /// `storage_unavailable`. `sqlite` is the triggering SQLite error, if any.
    case unavailable(reason: String, sqlite: SQLiteError?)
    /// The connection was lost after a COMMIT went out and before its
    /// answer came, and the database could not be asked in time whether it
    /// committed: the write may or may not have been applied. The HTTP
    /// layer maps this to 503 `write_outcome_unknown`.
    case outcomeUnknown(reason: String)
    /// Any other SQLite failure (constraint violation, syntax error, …).
    case sqlite(SQLiteError)
    /// Any other PostgreSQL failure (constraint violation, syntax error, a
    /// serialization failure still failing after the retries, …).
    case postgres(PostgresError)
    /// A column held a value of another storage class than requested.
    case typeMismatch(column: String, expected: String, actual: String)
    /// No such column in the row.
    case columnNotFound(String)
    /// A statement's `?` count differs from the number of arguments given.
    case argumentCountMismatch(sql: String, expected: Int, given: Int)
    /// The SQL text held more than one statement; use `executeScript`.
    case multipleStatements(sql: String)
    /// Migration `version` failed; it was rolled back and nothing of it remains.
    case migrationFailed(version: Int64, name: String, underlying: SQLiteError)
    /// PostgreSQL migration `version` failed; it was rolled back.
    case postgresMigrationFailed(version: Int64, name: String, underlying: PostgresError)
    /// The migration list is malformed or disagrees with what the database recorded.
    case invalidMigrations(String)
    /// A handle was used outside the closure it was lent to.
    case handleOutOfScope
    /// The storage instance was closed.
    case closed

    /// True for `.unavailable`: the owner should report 503 and re-create the capability.
    public var isUnavailable: Bool {
        if case .unavailable = self { return true }
        return false
    }

    /// A UNIQUE or PRIMARY KEY constraint failed, on either backend.
    public var isUniqueViolation: Bool {
        if case .postgres(let e) = self { return e.isUniqueViolation }
        return sqliteError?.isUniqueViolation == true
    }

    /// The PostgreSQL error behind this one, if any.
    public var postgresError: PostgresError? {
        switch self {
        case .postgres(let e): e
        case .postgresMigrationFailed(_, _, let e): e
        default: nil
        }
    }

    /// The SQLite error behind this one, if any.
    public var sqliteError: SQLiteError? {
        switch self {
        case .unavailable(_, let e): e
        case .sqlite(let e): e
        case .migrationFailed(_, _, let e): e
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .unavailable(let reason, let e):
            "storage unavailable: \(reason)" + (e.map { " (\($0))" } ?? "")
        case .outcomeUnknown(let reason): "write outcome unknown: \(reason)"
        case .sqlite(let e): e.description
        case .postgres(let e): e.description
        case .postgresMigrationFailed(let v, let n, let e): "migration \(v) \(n) failed: \(e)"
        case .typeMismatch(let c, let expected, let actual):
            "column \(c): expected \(expected), found \(actual)"
        case .columnNotFound(let c): "no column \(c)"
        case .argumentCountMismatch(let sql, let expected, let given):
            "statement takes \(expected) arguments, \(given) given [\(sql)]"
        case .multipleStatements(let sql): "more than one statement in [\(sql)]"
        case .migrationFailed(let v, let n, let e): "migration \(v) \(n) failed: \(e)"
        case .invalidMigrations(let why): "invalid migrations: \(why)"
        case .handleOutOfScope: "database handle used outside its closure"
        case .closed: "storage closed"
        }
    }
}

extension StorageError {
    /// The error for a connection that could not be opened and configured:
    /// unavailable when the medium is the problem, a plain SQLite error otherwise.
    static func opening(_ path: String, _ error: SQLiteError) -> StorageError {
        error.meansUnavailable(forReader: false)
            ? .unavailable(reason: "cannot open \(path): \(error.message)", sqlite: error)
            : .sqlite(error)
    }
}

extension StorageError {
    /// Unavailable storage, or an instance closed while being replaced.
    var meansUnavailable: Bool {
        if isUnavailable { return true }
        if case .closed = self { return true }
        return false
    }
}
