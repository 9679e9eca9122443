import Domain
import Testing

@Suite struct OrderStatusTests {
    /// The whole allowed table; every other (from, to, actor) is refused.
    static let allowed: Set<String> = [
        "pending>confirmed@system",
        "pending>cancelled@customer", "pending>cancelled@admin", "pending>cancelled@system",
        "confirmed>cancelled@customer", "confirmed>cancelled@admin",
        "confirmed>shipped@admin",
        "shipped>delivered@admin",
    ]

    static let everyMove: [(OrderStatus, OrderStatus, OrderActor)] = OrderStatus.allCases.flatMap { from in
        OrderStatus.allCases.flatMap { to in OrderActor.allCases.map { (from, to, $0) } }
    }

    @Test(arguments: everyMove)
    func transitionTable(from: OrderStatus, to: OrderStatus, actor: OrderActor) {
        let isAllowed = Self.allowed.contains("\(from.rawValue)>\(to.rawValue)@\(actor.rawValue)")
        #expect(from.canTransition(to: to, by: actor) == isAllowed)
        let result = domainError { () throws in try from.transition(to: to, by: actor) }
        if isAllowed {
            #expect(result == nil)
        } else {
            #expect(result == OrderError.illegalTransition(from: from, to: to))
            #expect(result?.code == "illegal_transition")
            #expect(result?.category == .conflict)
        }
    }

    @Test func tableCoversEveryCombination() {
        #expect(Self.everyMove.count == 75)
        #expect(Self.everyMove.filter { $0.0.canTransition(to: $0.1, by: $0.2) }.count == Self.allowed.count)
    }

    @Test func cancellableAndFinal() {
        #expect(OrderStatus.allCases.filter(\.isCancellable) == [.pending, .confirmed])
        // No transition leaves a delivered or cancelled order.
        for status in [OrderStatus.delivered, .cancelled] {
            #expect(OrderStatus.allCases.allSatisfy { next in
                OrderActor.allCases.allSatisfy { !status.canTransition(to: next, by: $0) }
            })
        }
    }
}
