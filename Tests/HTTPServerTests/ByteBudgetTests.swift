import Testing
@testable import HTTPServer

@Suite struct ByteBudgetTests {
    @Test func reservationsFitUpToTheLimitAndNoFurther() {
        var budget = ByteBudget(limit: 1_000)
        do { let result = budget.reserve(600); #expect(result) }
        do { let result = budget.reserve(401); #expect(!result) }
        #expect(budget.reserved == 600)
        do { let result = budget.reserve(400); #expect(result) }
        do { let result = budget.reserve(1); #expect(!result) }
    }

    @Test func releasedBytesCanBeReservedAgain() {
        var budget = ByteBudget(limit: 1_000)
        do { let result = budget.reserve(1_000); #expect(result) }
        budget.release(300)
        #expect(budget.reserved == 700)
        do { let result = budget.reserve(300); #expect(result) }
        budget.release(1_000)
        #expect(budget.reserved == 0)
    }

    @Test func forcedBytesCountAndBlockFurtherReservations() {
        var budget = ByteBudget(limit: 100)
        do { let result = budget.reserve(90); #expect(result) }
        budget.force(20)
        #expect(budget.reserved == 110)
        do { let result = budget.reserve(1); #expect(!result) }
        budget.release(110)
        do { let result = budget.reserve(100); #expect(result) }
    }
}
