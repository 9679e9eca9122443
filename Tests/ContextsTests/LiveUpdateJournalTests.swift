@testable import Contexts
import Domain
import Foundation
import Testing

/// The journal behind `GET /events`: ids, resuming by `Last-Event-ID`, and
/// what a subscriber that cannot keep up gets.
@Suite("Live update journal")
struct LiveUpdateJournalTests {
    /// An update that tells its place by its cart total.
    static func update(_ number: Int) throws -> LiveUpdate {
        let currency = try Currency("USD")
        let line = try PricedLine(productID: ProductID(UUID()), name: "Mug", quantity: 1,
                              unitPrice: Money(amount: Int64(number), currency: currency))
        return .cartChanged(CartQuote(priced: try PricedCart(lines: [line], currency: currency)))
    }

    static func number(_ event: LiveEvent) -> Int? {
        guard case .cartChanged(let quote) = event.update else { return nil }
        return Int(quote.total.amount)
    }

    static func subscribe(_ journal: inout LiveUpdateJournal, after id: String?) -> LiveSubscription {
        journal.subscribe(after: id) { _ in }
    }

    /// Takes `count` events off a subscription, or fewer if it ends first.
    static func take(_ count: Int, from subscription: LiveSubscription) async -> [LiveEvent] {
        var taken: [LiveEvent] = []
        for await event in subscription.events {
            taken.append(event)
            if taken.count == count { break }
        }
        return taken
    }

    @Test("ids rise by one per event and a live subscriber gets every event in order")
    func idsAndOrder() async throws {
        var journal = LiveUpdateJournal(capacity: 8)
        let subscription = Self.subscribe(&journal, after: nil)
        #expect(subscription.replay.isEmpty && !subscription.mustRefetch)
        for number in 1...5 { journal.append(try Self.update(number)) }
        let events = await Self.take(5, from: subscription)
        #expect(events.map(Self.number) == [1, 2, 3, 4, 5])
        let sequences = events.map { $0.id.split(separator: "-").last.flatMap { UInt64($0) } }
        #expect(sequences == [1, 2, 3, 4, 5])
        #expect(Set(events.map { $0.id.split(separator: "-").first }).count == 1)
    }

    @Test("Last-Event-ID replays exactly what came after it, up to the newest")
    func resumes() throws {
        var journal = LiveUpdateJournal(capacity: 8)
        for number in 1...6 { journal.append(try Self.update(number)) }
        let all = Self.subscribe(&journal, after: Self.id(of: journal, sequence: 2))
        #expect(!all.mustRefetch)
        #expect(all.replay.map(Self.number) == [3, 4, 5, 6])
        let upToDate = Self.subscribe(&journal, after: Self.id(of: journal, sequence: 6))
        #expect(!upToDate.mustRefetch && upToDate.replay.isEmpty)
    }

    @Test("an id older than the buffer, from the future, foreign or malformed asks for a refetch")
    func refetches() throws {
        var journal = LiveUpdateJournal(capacity: 4)
        for number in 1...10 { journal.append(try Self.update(number)) }
        // Kept: 7...10. Resuming after 6 needs only kept events.
        let edge = Self.subscribe(&journal, after: Self.id(of: journal, sequence: 6))
        #expect(!edge.mustRefetch)
        #expect(edge.replay.map(Self.number) == [7, 8, 9, 10])
        // After 5, event 6 is gone.
        for id in [Self.id(of: journal, sequence: 5), Self.id(of: journal, sequence: 11),
                   "0000000-3", "no-dash-number", "garbage", Self.id(of: LiveUpdateJournal(capacity: 4), sequence: 9)] {
            let subscription = Self.subscribe(&journal, after: id)
            #expect(subscription.mustRefetch, "\(id)")
            #expect(subscription.replay.isEmpty)
        }
        // No id at all is a fresh start, not a refetch.
        #expect(!Self.subscribe(&journal, after: "").mustRefetch)
    }

    @Test("a subscriber a whole buffer behind ends after a gapless run, and resumes from there")
    func stalledSubscriberEnds() async throws {
        var journal = LiveUpdateJournal(capacity: 4)
        let stalled = Self.subscribe(&journal, after: nil)
        for number in 1...5 { journal.append(try Self.update(number)) }
        #expect(journal.subscriberCount == 0)
        // It holds 1...4 (no gap), then its stream ends.
        let held = await Self.take(10, from: stalled)
        #expect(held.map(Self.number) == [1, 2, 3, 4])
        let resumed = Self.subscribe(&journal, after: held.last?.id)
        #expect(!resumed.mustRefetch)
        #expect(resumed.replay.map(Self.number) == [5])
    }

    @Test("finishAll ends every stream")
    func finishAll() async throws {
        var journal = LiveUpdateJournal(capacity: 4)
        let one = Self.subscribe(&journal, after: nil)
        let two = Self.subscribe(&journal, after: nil)
        journal.append(try Self.update(1))
        journal.finishAll()
        #expect(journal.subscriberCount == 0)
        #expect(await Self.take(10, from: one).map(Self.number) == [1])
        #expect(await Self.take(10, from: two).map(Self.number) == [1])
    }

    /// The id the journal gave (or would give) its `sequence`th event.
    static func id(of journal: LiveUpdateJournal, sequence: Int) -> String {
        "\(journal.epoch)-\(sequence)"
    }
}
