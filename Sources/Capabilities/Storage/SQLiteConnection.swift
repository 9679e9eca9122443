import CSQLite
import CSQLiteSharedMap

// SQLITE_TRANSIENT is a macro with a cast, which Swift does not import.
private let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One SQLite connection and its cache of prepared statements.
///
/// Not thread-safe: every instance is confined to one serial Dispatch queue
/// (the writer's, or one reader slot's) and only touched there. Opened with
/// SQLITE_OPEN_NOMUTEX because that confinement already serialises access.
final class SQLiteConnection {
    let db: OpaquePointer
    let isReader: Bool
    private struct CachedStatement {
        let statement: OpaquePointer
        /// Result column names, read once per compilation: building them for
        /// every run would cost a String per column per query. SQLite
        /// recompiles a statement after a schema change
        /// (`SQLITE_STMTSTATUS_REPREPARE` counts it); the names are read again then.
        var columns: [String]
        var compilations: Int32
        var lastUse: UInt64
    }
    private var statements: [String: CachedStatement] = [:]
    /// Ticks once per statement use; the entry with the oldest tick is evicted.
    private var useClock: UInt64 = 0
    private let cacheCapacity: Int
    /// While true, the authorizer refuses BEGIN/COMMIT/ROLLBACK/SAVEPOINT:
    /// transactions belong to the storage layer, not to caller closures.
    fileprivate var transactionControlDenied = false

    init(path: String, reader: Bool, configuration: StorageConfiguration) throws(SQLiteError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (reader ? 0 : SQLITE_OPEN_CREATE)
        // Every connection through the shared-map VFS: the readers' mapped
        // pages are one mapping per file, and the writer's truncations keep
        // that mapping from handing out pages past the end.
        let vfs = axiom_shared_map_register() == SQLITE_OK ? AXIOM_SHARED_MAP_VFS : nil
        let rc = sqlite3_open_v2(path, &handle, flags, vfs)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            let extended = handle.map { sqlite3_extended_errcode($0) } ?? rc
            if let handle { sqlite3_close_v2(handle) }
            throw SQLiteError(extendedCode: extended, message: message, sql: nil)
        }
        do {
            try CountedBM25.register(on: handle)
        } catch {
            sqlite3_close_v2(handle)
            throw error
        }
        db = handle
        isReader = reader
        cacheCapacity = max(1, configuration.statementCacheCapacity)
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, configuration.busyTimeoutMilliseconds)
        sqlite3_set_authorizer(db, { context, action, _, _, _, _ in
            guard let context else { return SQLITE_OK }
            let connection = Unmanaged<SQLiteConnection>.fromOpaque(context).takeUnretainedValue()
            if connection.transactionControlDenied && (action == SQLITE_TRANSACTION || action == SQLITE_SAVEPOINT) {
                return SQLITE_DENY
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        for entry in statements.values { sqlite3_finalize(entry.statement) }
        // The authorizer's context is `self`: remove it before the pointer dangles.
        sqlite3_set_authorizer(db, nil, nil)
        sqlite3_close_v2(db)
    }

    /// True outside an explicit transaction (SQLite rolled back or never began one).
    var isAutocommit: Bool { sqlite3_get_autocommit(db) != 0 }
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(db) }
    var changes: Int { Int(sqlite3_changes64(db)) }

    /// Runs `body` with transaction-control statements refused.
    func withTransactionControlDenied<T>(_ body: () throws -> T) rethrows -> T {
        let previous = transactionControlDenied
        transactionControlDenied = true
        defer { transactionControlDenied = previous }
        return try body()
    }

    func error(_ rc: Int32, sql: String?) -> SQLiteError {
        // The connection's extended code matches `rc` for the last call; prefer
        // it because it carries the detail (e.g. SQLITE_IOERR_WRITE).
        let extended = sqlite3_extended_errcode(db)
        let code = (extended & 0xFF) == (rc & 0xFF) ? extended : rc
        return SQLiteError(extendedCode: code, message: String(cString: sqlite3_errmsg(db)), sql: sql)
    }

    /// Runs one or more statements without arguments (sqlite3_exec).
    func exec(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(db, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
            sqlite3_free(message)
            throw SQLiteError(extendedCode: sqlite3_extended_errcode(db), message: text, sql: sql)
        }
    }

    /// Runs one argument-less statement through the statement cache: the
    /// group-commit hot path (BEGIN, SAVEPOINT, RELEASE, COMMIT) then costs no
    /// SQL compilation per request.
    /// These statements are cached under a key no caller SQL can equal, so
    /// a closure's own "COMMIT" is still compiled, and refused, by the authorizer.
    func runCached(_ sql: String) throws {
        _ = try run(sql, [], cacheKey: "\u{0}control\u{0}" + sql)
    }

    /// The cached prepared statement for `sql`, preparing it on first use.
    private func statement(for sql: String, cacheKey key: String) throws -> (OpaquePointer, [String]) {
        useClock &+= 1
        if var cached = statements[key] {
            cached.lastUse = useClock
            let compilations = sqlite3_stmt_status(cached.statement, SQLITE_STMTSTATUS_REPREPARE, 0)
            if compilations != cached.compilations {
                cached.columns = Self.columnNames(cached.statement)
                cached.compilations = compilations
            }
            statements[key] = cached
            return (cached.statement, cached.columns)
        }
        if key == sql, sql.utf8.contains(0) { throw Self.containsNUL(sql) }
        var statement: OpaquePointer?
        // The tail is looked at inside withCString: it points into that
        // buffer, which for a short string is a temporary copy (reading it
        // afterwards made "BEGIN" look like two statements).
        var trailing = false
        let rc = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v3(db, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, &tail)
            if let tail { trailing = String(cString: tail).contains(where: { !$0.isWhitespace && $0 != ";" }) }
            return rc
        }
        guard rc == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            if rc == SQLITE_OK { // empty or comment-only SQL compiles to no statement
                throw StorageError.sqlite(SQLiteError(extendedCode: SQLITE_MISUSE, message: "no statement in SQL", sql: sql))
            }
            throw StorageError.sqlite(error(rc, sql: sql))
        }
        if trailing {
            sqlite3_finalize(statement)
            throw StorageError.multipleStatements(sql: sql)
        }
        if statements.count >= cacheCapacity,
           let oldest = statements.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            statements.removeValue(forKey: oldest.key)
            sqlite3_finalize(oldest.value.statement)
        }
        let columns = Self.columnNames(statement)
        statements[key] = CachedStatement(statement: statement, columns: columns, compilations: 0, lastUse: useClock)
        return (statement, columns)
    }

    private static func containsNUL(_ sql: String) -> StorageError {
        StorageError.sqlite(SQLiteError(extendedCode: SQLITE_MISUSE, message: "SQL text contains a NUL character", sql: sql))
    }

    private static func columnNames(_ statement: OpaquePointer) -> [String] {
        (0..<sqlite3_column_count(statement)).map { String(cString: sqlite3_column_name(statement, $0)) }
    }

    /// Runs one statement with `arguments` bound to its parameters and returns
    /// every result row. Thrown errors are `StorageError`; SQLite failures come
    /// as `.sqlite` (the caller classifies them).
    func run(_ sql: String, _ arguments: [StorageValue], cacheKey: String? = nil) throws -> [StorageRow] {
        // SQL text never contains NUL. Every internal cache key starts with
        // one, so caller SQL that does cannot match one; the rest of the text
        // is checked when it is compiled (a cached statement passed already).
        if cacheKey == nil, sql.utf8.first == 0 { throw Self.containsNUL(sql) }
        let (statement, columns) = try statement(for: sql, cacheKey: cacheKey ?? sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        let expected = Int(sqlite3_bind_parameter_count(statement))
        guard expected == arguments.count else {
            throw StorageError.argumentCountMismatch(sql: sql, expected: expected, given: arguments.count)
        }
        for (offset, value) in arguments.enumerated() {
            let rc = bind(value, to: statement, at: Int32(offset + 1))
            guard rc == SQLITE_OK else { throw StorageError.sqlite(error(rc, sql: sql)) }
        }
        let columnCount = Int32(columns.count)
        var rows: [StorageRow] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return rows }
            guard rc == SQLITE_ROW else { throw StorageError.sqlite(error(rc, sql: sql)) }
            var values: [StorageValue] = []
            values.reserveCapacity(Int(columnCount))
            for column in 0..<columnCount {
                values.append(read(statement, column))
            }
            rows.append(StorageRow(columns: columns, values: values))
        }
    }

    private func bind(_ value: StorageValue, to statement: OpaquePointer, at index: Int32) -> Int32 {
        switch value {
        case .null:
            return sqlite3_bind_null(statement, index)
        case .integer(let v):
            return sqlite3_bind_int64(statement, index, v)
        case .real(let v):
            return sqlite3_bind_double(statement, index, v)
        case .text(let v):
            var text = v
            return text.withUTF8 { bytes in
                // An empty buffer may have a nil base address, which SQLite
                // would bind as NULL: bind an empty literal instead.
                guard let base = bytes.baseAddress, bytes.count > 0 else {
                    return sqlite3_bind_text(statement, index, "", 0, SQLITE_TRANSIENT)
                }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite3_bind_text64(statement, index, $0, UInt64(bytes.count), SQLITE_TRANSIENT, UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let v):
            if v.isEmpty { return sqlite3_bind_zeroblob(statement, index, 0) }
            return v.withUnsafeBytes {
                sqlite3_bind_blob64(statement, index, $0.baseAddress, UInt64($0.count), SQLITE_TRANSIENT)
            }
        }
    }

    private func read(_ statement: OpaquePointer, _ column: Int32) -> StorageValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(statement, column) else { return .text("") }
            let count = Int(sqlite3_column_bytes(statement, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return .blob([]) }
            return .blob([UInt8](UnsafeRawBufferPointer(start: bytes, count: count)))
        default:
            return .null
        }
    }
}
