import AxiomTestSupport
import Foundation
import Testing
@testable import Capabilities

/// A write learns the position of its own outbox rows (the `/events` id),
/// on both backends, with many writes committed together: on PostgreSQL the
/// group-commit writer inserts a whole batch's rows in one statement and
/// hands each request its own values back.
@Suite(.serialized) struct SequencedWriteTests {
    @Test(arguments: StorageBackend.all)
    func eachWriteGetsTheNewestSequenceOfItsOwnRows(backend: StorageBackend) async throws {
        let (a, b) = try await Replica.pair(backend, migrations: ChangeFeedTests.migrations)
        // Write w records w % 4 rows (none for every fourth), keyed "w-r".
        let answers = try await withThrowingTaskGroup(of: (Int, Int64?).self) { group in
            for write in 0..<64 {
                let replica = write % 2 == 0 ? a : b
                group.addTask {
                    let (_, sequence) = try await replica.storage.sequencedWrite { handle in
                        try handle.execute("INSERT INTO notes(id) VALUES(?)", "n\(write)")
                        for row in 0..<(write % 4) {
                            try handle.recordChange(ChangeRecord(kind: .cart, key: "\(write)-\(row)", userID: "u"))
                        }
                    }
                    return (write, sequence)
                }
            }
            return try await group.reduce(into: [Int: Int64?]()) { $0[$1.0] = $1.1 }
        }
        let rows = try await a.storage.storedRead { handle in
            let position = handle.dialect == .sqlite ? "seq" : "position"
            return try handle.query("SELECT key, \(position) AS position FROM changes").map {
                (try $0.get("key") as String, try $0.get("position") as Int64)
            }
        }
        var newest: [Int: Int64] = [:]
        for (key, sequence) in rows {
            let write = Int(key.split(separator: "-")[0])!
            newest[write] = max(newest[write] ?? 0, sequence)
        }
        #expect(answers.count == 64)
        for write in 0..<64 {
            #expect(answers[write] == newest[write], "write \(write)")
        }
        for replica in [a, b] { await replica.stop() }
    }
}
