import AxiomTestSupport
import Foundation
import Testing
@testable import Capabilities

/// `bm25_with_counts`, the FTS5 ranking function every SQLite connection
/// gets, against a real FTS5 table on a real file: its score is BM25's
/// (k1 = 1.2, b = 0) from the weights and the document counts it is given.
@Suite struct CountedBM25Tests {
    private static func withDocuments<R>(_ body: (SQLiteStorage) async throws -> R) async throws -> R {
        let directory = try TempDirectory()
        let storage = try await Fixture.open(directory)
        try await storage.write { db in
            try db.executeScript("""
                CREATE VIRTUAL TABLE documents USING fts5(title, body);
                INSERT INTO documents(rowid, title, body) VALUES
                    (1, 'red lamp', 'a lamp for the desk'),
                    (2, 'blue chair', 'sits under a red lamp'),
                    (3, 'green chair', 'plain'),
                    (4, 'oak desk', 'plain');
                """)
        }
        return try await withCleanup({ await storage.close() }) { try await body(storage) }
    }

    private static func scores(_ storage: SQLiteStorage, _ match: String, weights: [Double],
                               counts: [Int]) async throws -> [Int64: Double] {
        let parameters = (weights.map { "\($0)" } + counts.map { "\($0)" }).joined(separator: ", ")
        let rows = try await storage.read { db in
            try db.query("SELECT rowid, bm25_with_counts(documents, \(parameters)) FROM documents WHERE documents MATCH ?",
                         match)
        }
        var scores: [Int64: Double] = [:]
        for row in rows { scores[try row.get(0)] = try row.get(1) }
        return scores
    }

    /// BM25 with b = 0 for one phrase: idf × f × (k1 + 1) / (f + k1), negated.
    private static func expected(rows: Double, documents: Double, frequency: Double) -> Double {
        let idf = max(1e-6, log((rows - documents + 0.5) / (documents + 0.5)))
        return -(idf * frequency * 2.2 / (frequency + 1.2))
    }

    @Test("the score is BM25's from the given weights and document counts, not counted again")
    func formula() async throws {
        try await Self.withDocuments { storage in
            // "lamp": row 1 has it in the title (weight 10) and twice in all
            // (title + body), row 2 once in the body (weight 1).
            let given = try await Self.scores(storage, #""lamp""#, weights: [10, 1], counts: [1])
            #expect(abs(given[1]! - Self.expected(rows: 4, documents: 1, frequency: 11)) < 1e-12)
            #expect(abs(given[2]! - Self.expected(rows: 4, documents: 1, frequency: 1)) < 1e-12)
            // The count is the caller's: a word said to be in 3 of 4 rows
            // weighs next to nothing (FTS5's floor), whatever the index holds.
            let common = try await Self.scores(storage, #""lamp""#, weights: [10, 1], counts: [3])
            #expect(abs(common[1]! - Self.expected(rows: 4, documents: 3, frequency: 11)) < 1e-12)
            #expect(common[1]! > given[1]!)
        }
    }

    @Test("phrases are those FTS5 kept: a phrase with no token takes no count")
    func droppedPhrase() async throws {
        try await Self.withDocuments { storage in
            let two = try await Self.scores(storage, #""red" "lamp"*"#, weights: [10, 1], counts: [2, 2])
            let withDash = try await Self.scores(storage, #""-" "red" "-" "lamp"*"#, weights: [10, 1], counts: [2, 2])
            #expect(two.keys.sorted() == [1, 2] && two == withDash)
        }
    }

    @Test("a count list of the wrong length is an error, not a shifted weighting")
    func arity() async throws {
        try await Self.withDocuments { storage in
            await #expect(throws: StorageError.self) {
                _ = try await Self.scores(storage, #""red" "lamp"*"#, weights: [10, 1], counts: [2])
            }
            do {
                _ = try await Self.scores(storage, #""red""#, weights: [10, 1], counts: [2, 2])
                Issue.record("three counts for one phrase were accepted")
            } catch {
                #expect("\(error)".contains("expected 2 column weights and 1 document counts, got 4 values"))
            }
        }
    }
}
