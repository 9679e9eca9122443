import Testing
@testable import Capabilities

/// `?` → `$n` needs no server: it is text.
@Suite struct PostgresPlaceholdersTests {
    @Test func placeholdersInsideLiteralsAndCommentsStay() {
        let (sql, count) = PostgresPlaceholders.rewrite("SELECT '?', \"a?\" FROM t -- why?\nWHERE a = ? AND b = ?")
        #expect(sql == "SELECT '?', \"a?\" FROM t -- why?\nWHERE a = $1 AND b = $2")
        #expect(count == 2)
    }

    @Test func numberedPlaceholdersKeepTheirNumberAndMayRepeat() {
        let (sql, count) = PostgresPlaceholders.rewrite("VALUES(?1, ?2, ?3, (SELECT MAX(p) FROM t WHERE u = ?1)) LIMIT ?")
        #expect(sql == "VALUES($1, $2, $3, (SELECT MAX(p) FROM t WHERE u = $1)) LIMIT $4")
        #expect(count == 4)
        #expect(PostgresPlaceholders.rewrite("a = ?").sql == "a = $1")
    }
}
