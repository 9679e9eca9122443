import Synchronization

/// Store SQL as PostgreSQL runs it, translated once per text and process:
/// the transaction-control check and the placeholder rewrite walk the text
/// Character by Character, too dear to do at every execution
/// (docs/scaling.md). Stores use a bounded set of texts, so the table holds
/// them all; past `capacity` (texts built from varying input) a text is
/// translated at each use.
enum PostgresStatementTexts {
    struct Translated: Sendable {
        let sql: String
        let parameterCount: Int
    }

    static let capacity = 4_096
    private static let table = Mutex<[String: Translated]>([:])

    /// `sql` with `$n` placeholders and the number of parameters it takes;
    /// throws for transaction control (`PostgresHandle.denyTransactionControl`).
    static func translate(_ sql: String) throws -> Translated {
        if let known = table.withLock({ $0[sql] }) { return known }
        try PostgresHandle.denyTransactionControl(sql)
        let (rewritten, count) = PostgresPlaceholders.rewrite(sql)
        let translated = Translated(sql: rewritten, parameterCount: count)
        table.withLock { table in
            if table.count < capacity { table[sql] = translated }
        }
        return translated
    }
}
