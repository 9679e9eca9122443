import Testing
@testable import Capabilities

/// `?` → `$n` needs no server: it is text.
@Suite struct PostgresPlaceholdersTests {
    @Test func placeholdersInsideLiteralsAndCommentsStay() {
        let (sql, count) = PostgresPlaceholders.rewrite("SELECT '?', \"a?\" FROM t -- why?\nWHERE a = ? AND b = ?")
        #expect(sql == "SELECT '?', \"a?\" FROM t -- why?\nWHERE a = $1 AND b = $2")
        #expect(count == 2)
    }
}
