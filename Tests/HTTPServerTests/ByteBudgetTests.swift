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

    @Test func availableIsWhatIsLeft() {
        var budget = ByteBudget(limit: 100)
        do { let result = budget.reserve(30); #expect(result) }
        #expect(budget.available == 70)
    }
}
