import CLibPQ

/// A `PGresult`, read once into rows of `StorageValue`s and cleared.
///
/// Results come in text format; the column's type OID decides the value:
/// integers and booleans become `.integer` (as SQLite stores them),
/// floating point `.real`, numeric `.integer` when whole (SUM over BIGINT
/// is numeric in PostgreSQL, INTEGER in SQLite) else `.real`, bytea `.blob`,
/// everything else `.text`.
struct PostgresResult {
    let rows: [StorageRow]
    /// Rows changed by an INSERT, UPDATE or DELETE (`PQcmdTuples`), else 0.
    let changes: Int

    init(_ result: OpaquePointer) {
        defer { PQclear(result) }
        changes = PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
        let columnCount = Int(PQnfields(result))
        let columns = (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) }
        let types = (0..<columnCount).map { PQftype(result, Int32($0)) }
        rows = (0..<Int(PQntuples(result))).map { row in
            StorageRow(columns: columns, values: (0..<columnCount).map { column in
                Self.value(result, row: Int32(row), column: Int32(column), type: types[column])
            })
        }
    }

    private static func value(_ result: OpaquePointer, row: Int32, column: Int32, type: Oid) -> StorageValue {
        if PQgetisnull(result, row, column) == 1 { return .null }
        let text = String(cString: PQgetvalue(result, row, column))
        switch type {
        case 20, 21, 23, 26: return Int64(text).map(StorageValue.integer) ?? .text(text)
        case 16: return .integer(text == "t" ? 1 : 0)
        case 700, 701: return Double(text).map(StorageValue.real) ?? .text(text)
        case 1700: return Int64(text).map(StorageValue.integer) ?? Double(text).map(StorageValue.real) ?? .text(text)
        case 17: return .blob(unescapeBytea(PQgetvalue(result, row, column)))
        default: return .text(text)
        }
    }

    private static func unescapeBytea(_ escaped: UnsafeMutablePointer<CChar>) -> [UInt8] {
        var length = 0
        guard let bytes = escaped.withMemoryRebound(to: UInt8.self, capacity: 1, { PQunescapeBytea($0, &length) }) else {
            return []
        }
        defer { PQfreemem(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }
}
