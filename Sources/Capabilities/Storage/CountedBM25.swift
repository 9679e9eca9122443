import CSQLite
import Glibc

/// `bm25_with_counts(fts_table, weight_1, …, weight_C, documents_1, …, documents_P)`:
/// an FTS5 ranking function, registered on every SQLite connection, that
/// scores a row as Okapi BM25 does, from statistics the caller supplies and
/// keeps between queries instead of FTS5 recounting them for each query.
///
/// Lower is better (the negated score), like FTS5's own `bm25()` and the
/// catalogue's cursor order. For each of the query's P phrases:
///
///     idf(n) × f × (k1 + 1) / (f + k1)
///
/// - `f`: the phrase's occurrences in the row, each weighted by its
///   column's weight (one per column, in the table's column order).
/// - `idf(n) = ln((N − n + 0.5) / (n + 0.5))`, at least 1e-6 (FTS5's
///   floor, so a word in more than half the rows still counts a little),
///   where `n` is `documents_i`, the rows matching phrase i alone, and `N`
///   the table's rows (FTS5 keeps that total; reading it costs nothing).
///
/// Why not `bm25()`:
/// - it counts `n` for every phrase of every query by walking the phrase's
///   whole doclist, long for a common word; the caller counts once and
///   keeps the count;
/// - it normalizes `f` by the row's length, which FTS5 reads from its
///   `docsize` table with one lookup per ranked row, most of the ranking's
///   time (`docs/catalog-client.md`). So this is BM25 with b = 0: no length normalization. A product's
///   text is a name, a SKU and a short description, and where a word
///   occurs (the column weights) says more than how long the text is.
///   PostgreSQL's `ts_rank`, the other backend's ranking, ignores length too.
///
/// A negative `documents_i` (`rarityLeftOut`) leaves phrase i's idf out
/// (1): for a query of one phrase, whose rarity would scale every match's
/// score alike, so that its order needs no count.
///
/// FTS5 numbers only the phrases that kept a token: a word the tokenizer
/// reduces to nothing (`-`) is no phrase. The caller passes counts for the
/// phrases that match something (a phrase matching nothing either is such
/// an empty one or leaves the AND with no row to rank), and a count list
/// of the wrong length is an error, never a silent shift of weights.
public enum CountedBM25 {
    static let name = "bm25_with_counts"
    /// BM25's term-frequency saturation, FTS5's value.
    static let k1 = 1.2
    /// The most phrases a query may have here (the catalogue allows 8 words).
    static let maxPhrases = 64
    /// The document count that leaves a phrase's rarity out of its score.
    public static let rarityLeftOut = -1

    /// Registers the function on `db`. FTS5's API is reached the documented
    /// way: `SELECT fts5(?1)` with a pointer bound as "fts5_api_ptr".
    static func register(on db: OpaquePointer) throws(SQLiteError) {
        var statement: OpaquePointer?
        var rc = sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw SQLiteError(extendedCode: rc, message: "FTS5 is not available: \(String(cString: sqlite3_errmsg(db)))", sql: nil)
        }
        defer { sqlite3_finalize(statement) }
        var api: UnsafeMutablePointer<fts5_api>?
        rc = withUnsafeMutablePointer(to: &api) { slot in
            // The type name must outlive the statement: a static string does.
            let type = UnsafeRawPointer(("fts5_api_ptr" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self)
            let bound = sqlite3_bind_pointer(statement, 1, slot, type, nil)
            return bound == SQLITE_OK ? sqlite3_step(statement) : bound
        }
        guard rc == SQLITE_ROW, let api, api.pointee.iVersion >= 2 else {
            throw SQLiteError(extendedCode: rc, message: "FTS5 API not returned", sql: nil)
        }
        rc = api.pointee.xCreateFunction(api, name, nil, rank, nil)
        guard rc == SQLITE_OK else {
            throw SQLiteError(extendedCode: rc, message: "could not register \(name)", sql: nil)
        }
    }

    private static let rank: fts5_extension_function = { api, fts, context, count, values in
        guard let api = api?.pointee, let fts, let values else { return }
        let columns = Int(api.xColumnCount(fts))
        let phrases = Int(api.xPhraseCount(fts))
        guard phrases <= maxPhrases, Int(count) == columns + phrases else {
            sqlite3_result_error(context, "\(name): expected \(columns) column weights and \(phrases) document counts, got \(count) values", -1)
            return
        }
        var rows: Int64 = 0
        var instances: Int32 = 0
        var rc = api.xRowCount(fts, &rows)
        if rc == SQLITE_OK { rc = api.xInstCount(fts, &instances) }
        guard rc == SQLITE_OK else {
            sqlite3_result_error_code(context, rc)
            return
        }
        let score = withUnsafeTemporaryAllocation(of: Double.self, capacity: max(phrases, 1)) { frequencies in
            frequencies.initialize(repeating: 0)
            for index in 0..<instances {
                var phrase: Int32 = 0, column: Int32 = 0, offset: Int32 = 0
                guard api.xInst(fts, index, &phrase, &column, &offset) == SQLITE_OK,
                      phrase >= 0, Int(phrase) < phrases, column >= 0, Int(column) < columns else { continue }
                frequencies[Int(phrase)] += sqlite3_value_double(values[Int(column)])
            }
            var score = 0.0
            for phrase in 0..<phrases {
                let frequency = frequencies[phrase]
                guard frequency > 0 else { continue }
                let count = sqlite3_value_int64(values[columns + phrase])
                let documents = Double(count)
                let idf = count < 0 ? 1 : max(1e-6, log((Double(rows) - documents + 0.5) / (documents + 0.5)))
                score += idf * frequency * (k1 + 1) / (frequency + k1)
            }
            return score
        }
        sqlite3_result_double(context, -score)
    }
}
