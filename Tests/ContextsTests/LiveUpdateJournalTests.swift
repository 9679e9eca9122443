@testable import Contexts
import Domain
import Foundation
import Testing

/// The journal behind `GET /events`: ids from the change outbox's sequence,
/// never repeated or moving back, and what a subscriber that cannot keep
/// up gets. (Resuming reads the outbox: LiveUpdatesContextTests and the
/// server's events tests.)
@Suite("Live update journal")
struct LiveUpdateJournalTests {
    /// An update that tells its place by its cart total.
    static func update(_ number: Int) throws -> LiveUpdate {
        let currency = try Currency("USD")
        let line = try PricedLine(productID: ProductID(UUID()), name: "Mug", quantity: 1,
                              unitPrice: Money(amount: Int64(number), currency: currency))
        return LiveUpdate(kind: CartLiveFeature.kind, payload: CartQuote(priced: try PricedCart(lines: [line], currency: currency)))
    }

    static func number(_ event: LiveEvent) -> Int? {
        guard let quote = event.update.payload as? CartQuote else { return nil }
        return Int(quote.total.amount)
    }

    static func subscribe(_ journal: inout LiveUpdateJournal) -> AsyncStream<LiveEvent> {
        journal.subscribe { _ in }.1
    }

    /// Takes `count` events off a stream, or fewer if it ends first.
    static func take(_ count: Int, from stream: AsyncStream<LiveEvent>) async -> [LiveEvent] {
        var taken: [LiveEvent] = []
        for await event in stream {
            taken.append(event)
            if taken.count == count { break }
        }
        return taken
    }

    @Test("an event's id is its change's sequence, and a live subscriber gets every event in order")
    func idsAndOrder() async throws {
        var journal = LiveUpdateJournal(capacity: 8)
        let stream = Self.subscribe(&journal)
        for (number, sequence) in zip(1...4, [3, 7, 8, 20] as [Int64]) {
            journal.append(try Self.update(number), sequence: sequence)
        }
        let events = await Self.take(4, from: stream)
        #expect(events.map(Self.number) == [1, 2, 3, 4])
        #expect(events.map(\.id) == [3, 7, 8, 20])
    }

    @Test("an update whose sequence is not above the last id sent goes without an id; a reset has none")
    func lateChangesAndResetsHaveNoID() async throws {
        var journal = LiveUpdateJournal(capacity: 8)
        let stream = Self.subscribe(&journal)
        journal.append(try Self.update(1), sequence: 12)
        // Another replica's change 11, applied here after local change 12.
        journal.append(try Self.update(2), sequence: 11)
        journal.append(try Self.update(3), sequence: 12)
        journal.append(.reset(reason: "test"), sequence: nil)
        journal.append(try Self.update(4), sequence: 13)
        let events = await Self.take(5, from: stream)
        #expect(events.map(\.id) == [12, nil, nil, nil, 13])
        // Each still names its change, for a resumed stream's seam.
        #expect(events.map(\.sequence) == [12, 11, 12, nil, 13])
        #expect(journal.lastID == 13)
    }

    @Test("a subscriber a whole buffer behind ends after a gapless run")
    func stalledSubscriberEnds() async throws {
        var journal = LiveUpdateJournal(capacity: 4)
        let stalled = Self.subscribe(&journal)
        for number in 1...5 { journal.append(try Self.update(number), sequence: Int64(number)) }
        #expect(journal.subscriberCount == 0)
        // It holds 1...4 (no gap), then its stream ends: the client resumes
        // after id 4 from the outbox.
        let held = await Self.take(10, from: stalled)
        #expect(held.map(Self.number) == [1, 2, 3, 4])
        #expect(held.last?.id == 4)
    }

    @Test("finishAll ends every stream")
    func finishAll() async throws {
        var journal = LiveUpdateJournal(capacity: 4)
        let one = Self.subscribe(&journal)
        let two = Self.subscribe(&journal)
        journal.append(try Self.update(1), sequence: 1)
        journal.finishAll()
        #expect(journal.subscriberCount == 0)
        #expect(await Self.take(10, from: one).map(Self.number) == [1])
        #expect(await Self.take(10, from: two).map(Self.number) == [1])
    }
}
