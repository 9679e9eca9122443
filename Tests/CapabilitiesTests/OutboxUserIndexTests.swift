import AxiomTestSupport
import Capabilities
import Testing
import TestSupport

/// A resume's read of one user's changes (`OutboxUserIndex`), one probe of
/// the user index a span: the same answer
/// as reading every row, for ranges that start and end inside spans and on
/// their edges; and no resume over more than `maxResumeSpan` positions.
@Suite(.serialized) struct OutboxUserIndexTests {
    struct Row: Hashable {
        let sequence: Int64
        let kind: String
        let key: String
        let user: String?
    }

    @Test(arguments: StorageBackend.all)
    func latestAcrossSpansIsWhatEveryRowSays(backend: StorageBackend) async throws {
        let replica = try await Replica.fresh(backend, migrations: [])
        // 1,500 changes (about six spans) of three users and nobody, two kinds, six keys, in a fixed pattern.
        try await replica.storage.durableWrite { handle in
            for n in 0..<1_500 {
                let user = ["a", "b", "c", nil][n * 7 % 4]
                try handle.recordChange(ChangeRecord(kind: n % 3 == 0 ? .order : .cart, key: "k\(n * 5 % 6)", userID: user))
            }
        }
        let (rows, head) = try await replica.storage.storedRead { handle -> ([Row], Int64) in
            let position = handle.dialect == .sqlite ? "seq" : "position"
            let rows = try handle.query("SELECT \(position) AS position, kind, key, user_id FROM changes ORDER BY seq").map { row in
                Row(sequence: try row.get("position"), kind: try row.get("kind"), key: try row.get("key"),
                    user: try row.get("user_id"))
            }
            return (rows, try OutboxUserIndex.window(handle).head)
        }
        #expect(rows.count == 1_500)
        let first = rows[0].sequence
        var ranges: [(Int64, Int64)] = [(first - 1, head), (head - 300, head), (first + 254, first + 256),
                                        (first + 255, first + 767), (first + 511, first + 512), (head - 1, head), (head, head)]
        var generator = SplitMix64(seed: 0x1234)
        for _ in 0..<20 {
            let a = first - 1 + Int64(generator.next() % 1_500)
            let b = first - 1 + Int64(generator.next() % 1_500)
            ranges.append((min(a, b), max(a, b)))
        }
        for (after, through) in ranges {
            for user in ["a", "b", "c"] {
                for kind in [ChangeKind.cart, .order] {
                    var expected: [String: Int64] = [:]
                    for row in rows where row.user == user && row.kind == kind.rawValue && row.sequence > after && row.sequence <= through {
                        expected[row.key] = row.sequence
                    }
                    let latest = try await replica.storage.storedRead {
                        try OutboxUserIndex.latest($0, user: user, kind: kind, after: after, through: through)
                    }
                    #expect(latest == expected, "user \(user), \(kind), (\(after), \(through)]")
                }
            }
        }
        await replica.stop()
    }

    @Test func aStreamFurtherBehindThanTheSpanIsNotResumed() {
        let window = OutboxUserIndex.Window(resumableAfter: 100, head: (1 << 18) + 100, maxResumeSpan: 1 << 18)
        #expect(window.canResume(after: 100))
        #expect(!window.canResume(after: 99))
        #expect(window.canResume(after: window.head))
        #expect(!window.canResume(after: window.head + 1))
    }
}
