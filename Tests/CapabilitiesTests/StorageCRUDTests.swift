import AxiomTestSupport
import Foundation
import Testing
@testable import Capabilities

@Suite struct StorageCRUDTests {
    @Test func roundTripsEveryValueType() async throws {
        let directory = try TempDirectory()
        let storage = try await Fixture.open(directory)
        let avatar = Data([0, 1, 2, 255, 0])
        let changed = try await storage.write { db in
            try db.execute(
                "INSERT INTO users(id, email, name, balance, score, avatar) VALUES(?, ?, ?, ?, ?, ?)",
                "u1", "Ada@Example.com", "Ada \u{0}Lovelace ✓", Int64.min, Double?.some(-2.5), avatar)
        }
        #expect(changed == 1)
        try await storage.write { db in
            try db.execute(
                "INSERT INTO users(id, email, name, balance, score, avatar) VALUES(?, ?, ?, ?, ?, ?)",
                arguments: ["u2", "b@example.com", "", .integer(Int64.max), nil, .blob([])])
        }

        let rows = try await storage.read { db in
            try db.query("SELECT id, email, name, balance, score, avatar FROM users ORDER BY id")
        }
        #expect(rows.count == 2)
        #expect(try rows[0].get("name") == "Ada \u{0}Lovelace ✓")
        #expect(try rows[0].get("balance") == Int64.min)
        #expect(try rows[0].get("score", as: Double?.self) == -2.5)
        #expect(try rows[0].get("avatar", as: Data.self) == avatar)
        #expect(try rows[0].get("avatar", as: [UInt8].self) == [0, 1, 2, 255, 0])
        #expect(try rows[1].get("name") == "")
        #expect(try rows[1].get("balance", as: Int64.self) == Int64.max)
        #expect(try rows[1].get("score", as: Double?.self) == nil)
        #expect(rows[1]["score"] == .null)
        #expect(try rows[1].get("avatar", as: [UInt8].self) == [])
        #expect(rows[0].columns == ["id", "email", "name", "balance", "score", "avatar"])
        await storage.close()
    }

    @Test func updatesAndDeletesReportChangedRows() async throws {
        let directory = try TempDirectory()
        let storage = try await Fixture.open(directory)
        for id in ["a", "b", "c"] { try await Fixture.insertUser(storage, id: id) }
        let updated = try await storage.write { db in
            try db.execute("UPDATE users SET balance = balance + ? WHERE id IN ('a', 'b')", 500)
        }
        #expect(updated == 2)
        let deleted = try await storage.write { db in try db.execute("DELETE FROM users WHERE id = ?", "c") }
        #expect(deleted == 1)
        let balances = try await storage.read { db in
            try db.query("SELECT id, balance FROM users ORDER BY id").map { try "\($0.get(0, as: String.self))=\($0.get(1, as: Int.self))" }
        }
        #expect(balances == ["a=500", "b=500"])
        let missing = try await storage.read { db in try db.queryOne("SELECT * FROM users WHERE id = ?", "zzz") }
        #expect(missing == nil)
        await storage.close()
    }

    @Test func writeReturnsValuesComputedInsideTheTransaction() async throws {
        let directory = try TempDirectory()
        let storage = try await Fixture.open(directory)
        try await Fixture.insertUser(storage, id: "owner")
        let rowID = try await storage.write { db -> Int64 in
            try db.execute("INSERT INTO notes(user_id, body) VALUES(?, ?)", "owner", "hello")
            return db.lastInsertRowID
        }
        let body = try await storage.read { db in
            try db.queryOne("SELECT body FROM notes WHERE id = ?", rowID)?.get(0, as: String.self)
        }
        #expect(body == "hello")
        await storage.close()
    }

    /// SQL text with a NUL is refused, wherever the NUL is: at the start
    /// (the shape of the connection's internal statement keys, which it
    /// must never reach) or later (checked when the text is compiled).
    @Test(arguments: ["\u{0}control\u{0}BEGIN", "SELECT 1\u{0}", "SELECT count(*)\u{0} FROM users"])
    func sqlWithANULCharacterIsRefused(_ sql: String) async throws {
        let directory = try TempDirectory()
        let storage = try await Fixture.open(directory)
        for _ in 0..<2 {  // the second time after the first refusal kept nothing
            let refused = await #expect(throws: StorageError.self) {
                try await storage.read { db in try db.query(sql) }
            }
            #expect(refused?.sqliteError?.code == 21)  // SQLITE_MISUSE
            #expect(refused?.sqliteError?.message == "SQL text contains a NUL character")
        }
        #expect(try await Fixture.userCount(storage) == 0)
        await storage.close()
    }

    @Test func constraintViolationsAreTypedSQLiteErrors() async throws {
        let directory = try TempDirectory()
        let storage = try await Fixture.open(directory)
        try await Fixture.insertUser(storage, id: "a", email: "same@example.com")

        let duplicate = await #expect(throws: StorageError.self) {
            try await Fixture.insertUser(storage, id: "b", email: "SAME@example.com")
        }
        #expect(duplicate?.sqliteError?.isUniqueViolation == true)
        #expect(duplicate?.isUnavailable == false)

        let orphan = await #expect(throws: StorageError.self) {
            try await storage.write { db in try db.execute("INSERT INTO notes(user_id, body) VALUES('nobody', 'x')") }
        }
        #expect(orphan?.sqliteError?.isForeignKeyViolation == true)

        // STRICT: a TEXT into an INTEGER column is refused.
        let wrongType = await #expect(throws: StorageError.self) {
            try await storage.write { db in
                try db.execute("INSERT INTO users(id, email, name, balance) VALUES('c', 'c@x', 'C', 'lots')")
            }
        }
        #expect(wrongType?.sqliteError?.isConstraintViolation == true)
        #expect(storage.isAvailable)
        #expect(try await Fixture.userCount(storage) == 1)
        await storage.close()
    }

    @Test func misuseIsReportedNotCrashed() async throws {
        let directory = try TempDirectory()
        let storage = try await Fixture.open(directory)
        try await Fixture.insertUser(storage, id: "a")

        let mismatch = await #expect(throws: StorageError.self) {
            try await storage.read { db in try db.queryOne("SELECT name FROM users")?.get(0, as: Int64.self) }
        }
        guard case .typeMismatch(let column, _, let actual)? = mismatch else {
            Issue.record("expected typeMismatch, got \(String(describing: mismatch))")
            return
        }
        #expect(column == "name" && actual == "TEXT")

        let noColumn = await #expect(throws: StorageError.self) {
            try await storage.read { db in try db.queryOne("SELECT name FROM users")?.get("nope", as: String.self) }
        }
        guard case .columnNotFound("nope")? = noColumn else {
            Issue.record("expected columnNotFound, got \(String(describing: noColumn))")
            return
        }

        let arity = await #expect(throws: StorageError.self) {
            try await storage.read { db in try db.query("SELECT * FROM users WHERE id = ? AND name = ?", "a") }
        }
        guard case .argumentCountMismatch(_, 2, 1)? = arity else {
            Issue.record("expected argumentCountMismatch, got \(String(describing: arity))")
            return
        }

        let twoStatements = await #expect(throws: StorageError.self) {
            try await storage.write { db in try db.execute("DELETE FROM users; DELETE FROM notes") }
        }
        guard case .multipleStatements? = twoStatements else {
            Issue.record("expected multipleStatements, got \(String(describing: twoStatements))")
            return
        }

        let nul = await #expect(throws: StorageError.self) {
            try await storage.read { db in try db.query("SELECT 1\u{0}") }
        }
        #expect(nul?.sqliteError?.code == 21) // SQLITE_MISUSE

        let syntax = await #expect(throws: StorageError.self) {
            try await storage.read { db in try db.query("SELEC nonsense") }
        }
        #expect(syntax?.sqliteError?.code == 1) // SQLITE_ERROR
        #expect(try await Fixture.userCount(storage) == 1)
        await storage.close()
    }

    @Test func closuresCannotControlTransactions() async throws {
        let directory = try TempDirectory()
        let storage = try await Fixture.open(directory)
        for sql in ["COMMIT", "BEGIN", "ROLLBACK", "SAVEPOINT x", "RELEASE x"] {
            let error = await #expect(throws: StorageError.self) {
                try await storage.write { db in try db.execute(sql) }
            }
            #expect(error?.sqliteError?.code == 23, "\(sql) must be refused (SQLITE_AUTH)")
        }
        let readError = await #expect(throws: StorageError.self) {
            try await storage.read { db in try db.execute("COMMIT") }
        }
        #expect(readError?.sqliteError?.code == 23)
        // The storage still works normally afterwards.
        try await Fixture.insertUser(storage, id: "after")
        #expect(try await Fixture.userCount(storage) == 1)
        await storage.close()
    }

    @Test func readersAreReadOnlyWithoutMarkingStorageUnavailable() async throws {
        let directory = try TempDirectory()
        let storage = try await Fixture.open(directory)
        let error = await #expect(throws: StorageError.self) {
            try await storage.read { db in try db.execute("INSERT INTO users(id, email, name) VALUES('x', 'x@x', 'X')") }
        }
        #expect(error?.sqliteError?.code == 8) // SQLITE_READONLY (query_only)
        #expect(error?.isUnavailable == false)
        #expect(storage.isAvailable)
        #expect(try await Fixture.userCount(storage) == 0)
        await storage.close()
    }

    @Test func throwingClosureRollsBackItsOwnStatementsOnly() async throws {
        let directory = try TempDirectory()
        let storage = try await Fixture.open(directory)
        await #expect(throws: ExpectedFailure(tag: 7)) {
            try await storage.write { db in
                try db.execute("INSERT INTO users(id, email, name) VALUES('ghost', 'g@x', 'G')")
                throw ExpectedFailure(tag: 7)
            }
        }
        // A closure may recover from a statement error and go on.
        let kept = try await storage.write { db -> Int in
            try db.execute("INSERT INTO users(id, email, name) VALUES('k', 'k@x', 'K')")
            do {
                try db.execute("INSERT INTO users(id, email, name) VALUES('k', 'dup@x', 'K2')")
            } catch let error as StorageError where error.sqliteError?.isUniqueViolation == true {
                try db.execute("UPDATE users SET name = 'K3' WHERE id = 'k'")
            }
            return try db.query("SELECT * FROM users").count
        }
        #expect(kept == 1)
        let names = try await storage.read { db in try db.query("SELECT id, name FROM users").map { try $0.get(1, as: String.self) } }
        #expect(names == ["K3"])
        await storage.close()
    }

    @Test func readersSeeCommittedDataOnEveryConnection() async throws {
        let directory = try TempDirectory()
        let storage = try await SQLiteStorage.open(
            StorageConfiguration(path: directory.path("r.db"), readerCount: 3), migrations: Fixture.migrations)
        for round in 1...5 {
            try await Fixture.insertUser(storage, id: "user-\(round)")
            // More concurrent reads than readers: every connection serves some.
            let counts = try await withThrowingTaskGroup(of: Int64.self) { group in
                for _ in 0..<12 { group.addTask { try await Fixture.userCount(storage) } }
                return try await group.reduce(into: [Int64]()) { $0.append($1) }
            }
            #expect(counts == Array(repeating: Int64(round), count: 12))
        }
        #expect(storage.metrics.reads >= 60)
        await storage.close()
    }

    @Test func statementCacheEvictionKeepsResultsCorrect() async throws {
        let directory = try TempDirectory()
        let storage = try await Fixture.open(directory) { $0.statementCacheCapacity = 2 }
        for i in 0..<20 {
            // 20 distinct statements through a 2-entry cache, each reused.
            try await storage.write { db in
                try db.execute("INSERT INTO users(id, email, name, balance) VALUES(?, ?, ?, \(i))", "u\(i)", "u\(i)@x", "U")
                try db.execute("INSERT INTO users(id, email, name, balance) VALUES(?, ?, ?, \(i))", "v\(i)", "v\(i)@x", "V")
            }
        }
        let sum: Int64? = try await storage.read { db in try db.queryOne("SELECT sum(balance) FROM users")?.get(0, as: Int64.self) }
        let expected: Int64 = 2 * (0..<20).reduce(0, +)
        #expect(sum == expected)
        await storage.close()
    }

    @Test func closedStorageRefusesWork() async throws {
        let directory = try TempDirectory()
        let storage = try await Fixture.open(directory)
        await storage.close()
        let writeError = await #expect(throws: StorageError.self) { try await Fixture.insertUser(storage, id: "late") }
        guard case .closed? = writeError else {
            Issue.record("expected closed, got \(String(describing: writeError))")
            return
        }
        let readError = await #expect(throws: StorageError.self) { try await Fixture.userCount(storage) }
        guard case .closed? = readError else {
            Issue.record("expected closed, got \(String(describing: readError))")
            return
        }
    }
}
