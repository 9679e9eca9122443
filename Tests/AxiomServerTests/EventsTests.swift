import Dispatch
import Foundation
import Synchronization
import Testing
import TestSupport

/// `GET /events` against the real binary: what each session sees, in which
/// shape, and how fast. How streams resume and end: EventStreamLifetimeTests.
@Suite struct EventsTests {
    static let rounds = 25

    @Test func anotherSessionOfTheUserSeesEachCartChangeAndOtherUsersSeeNothing() throws {
        try EventShop.run(users: 2, sessionsEach: 2, arguments: ["--events-heartbeat-interval", "0.2"]) { shop in
            let (writer, watching) = (shop.tokens[0][0], shop.tokens[0][1])
            let watcher = try shop.stream(watching)
            #expect(watcher.head.status == 200)
            #expect(watcher.head.header("Content-Type") == "text/event-stream; charset=utf-8")
            #expect(watcher.head.header("Transfer-Encoding") == "chunked")
            #expect(watcher.head.header("Cache-Control") == "no-store")
            let stranger = try shop.stream(shop.tokens[1][0])
            #expect(try watcher.nextBlock() == "retry: 2000")
            #expect(try stranger.nextBlock() == "retry: 2000")

            // Session B's stream is read on a thread of its own, which stamps
            // each event as it arrives; session A writes, one change per round.
            let arrivals = Mutex<[(ContinuousClock.Instant, EventStreamClient.Event)]>([])
            let arrived = DispatchSemaphore(value: 0)
            let reader = watcher
            Thread.detachNewThread {
                for _ in 0..<Self.rounds {
                    guard let event = try? reader.nextEvent() else { break }
                    arrivals.withLock { $0.append((ContinuousClock.now, event)) }
                    arrived.signal()
                }
                arrived.signal()
            }
            var fromSend: [Duration] = [], fromResponse: [Duration] = []
            for round in 0..<Self.rounds {
                let sent = ContinuousClock.now
                try shop.setQuantity(round % 9 + 1, token: writer)
                let acknowledged = ContinuousClock.now
                // A hang guard only: the figures are printed, not judged.
                try #require(arrived.wait(timeout: .now() + 30) == .success)
                let (at, event) = try #require(arrivals.withLock { $0.count > round ? $0[round] : nil })
                #expect(event.type == "cart.updated")
                let items = try #require(event.object["items"] as? [[String: Any]])
                #expect(items.first?["quantity"] as? Int == round % 9 + 1)
                #expect(items.first?["product_id"] as? String == shop.productID)
                fromSend.append(at - sent)
                fromResponse.append(at - acknowledged)
            }
            print("live update latency over \(Self.rounds) cart changes, session A's PUT sent → session B's event read: "
                  + Self.summary(fromSend) + "; PUT's response read → event read: " + Self.summary(fromResponse))

            // The event carries the cart exactly as GET /cart shows it.
            let last = try #require(arrivals.withLock { $0.last?.1 })
            #expect(EventShop.sameJSON(last.object, try shop.get("/cart", token: watching)))
            let ids = arrivals.withLock { $0.map { EventShop.sequence($0.1.id) } }
            #expect(ids == ids.sorted { ($0 ?? 0) < ($1 ?? 0) } && Set(ids).count == Self.rounds)

            // The other user's stream stays alive (heartbeats) but carries none of it.
            var comments: [String] = []
            var strangerBlocks: [String] = []
            while comments.count < 2 {
                guard let block = try stranger.nextBlock() else { break }
                if block.hasPrefix(":") { comments.append(block) } else { strangerBlocks.append(block) }
            }
            #expect(comments == [": heartbeat", ": heartbeat"])
            #expect(strangerBlocks.isEmpty)
        }
    }

    @Test func checkoutAndOrderChangesArriveAsGETShowsThem() throws {
        try EventShop.run(users: 2, sessionsEach: 2) { shop in
            let (writer, watching) = (shop.tokens[0][0], shop.tokens[0][1])
            let watcher = try shop.stream(watching)
            let stranger = try shop.stream(shop.tokens[1][0])
            try shop.setQuantity(2, token: writer)
            let checkout = try shop.api.call("POST", "/checkout", token: writer)
            #expect(checkout.status == 201)
            let orderID = try #require(shop.api.object(checkout)["id"] as? String)

            // The cart and order clients are observed apart, so a checkout's
            // cart and order events may interleave; each kind keeps its order.
            var events: [EventStreamClient.Event] = []
            func kinds() -> [String] { events.compactMap(\.type) }
            while kinds().filter({ $0 == "cart.updated" }).count < 2 || kinds().filter({ $0.hasPrefix("order.") }).count < 1 {
                guard let event = try watcher.nextEvent() else { break }
                events.append(event)
            }
            let orderEvents = events.filter { $0.type?.hasPrefix("order.") == true }
            // Pending until paid: the checkout itself moves the order no further.
            #expect(orderEvents.map(\.type) == ["order.created"])
            #expect(orderEvents.map { $0.object["id"] as? String } == [orderID])
            #expect(orderEvents.map { $0.object["status"] as? String } == ["pending"])
            let cartEvents = events.filter { $0.type == "cart.updated" }
            #expect((cartEvents.last?.object["items"] as? [Any])?.isEmpty == true)  // emptied by the checkout

            // A cancellation, from the other session, is an order.updated with
            // the order as GET /orders/{id} shows it.
            #expect(try shop.api.call("POST", "/orders/\(orderID)/cancel", token: writer).status == 200)
            let cancelled = try #require(try watcher.nextEvent())
            #expect(cancelled.type == "order.updated")
            #expect(cancelled.object["status"] as? String == "cancelled")
            #expect(EventShop.sameJSON(cancelled.object, try shop.get("/orders/\(orderID)", token: watching)))
            // Ids are outbox sequences (stock rows of other users' kinds fall
            // between): they only rise within the stream.
            let sequences = (events + [cancelled]).compactMap { EventShop.sequence($0.id) }
            #expect(!sequences.isEmpty && zip(sequences, sequences.dropFirst()).allSatisfy { $0 < $1 }, "\(sequences)")

            // None of it reached the other user: their stream's next thing is
            // their own change.
            try shop.setQuantity(1, token: shop.tokens[1][0])
            let own = try #require(try stranger.nextEvent())
            #expect(own.type == "cart.updated")
            #expect(EventShop.sequence(own.id)! > EventShop.sequence(cancelled.id)!)
        }
    }

    /// min / median / p90 / max in milliseconds.
    static func summary(_ samples: [Duration]) -> String {
        let sorted = samples.sorted()
        func ms(_ duration: Duration) -> String {
            let value = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
            return String(format: "%.2f", value)
        }
        guard !sorted.isEmpty else { return "no samples" }
        return "min \(ms(sorted[0])) ms, median \(ms(sorted[sorted.count / 2])) ms, "
            + "p90 \(ms(sorted[sorted.count * 9 / 10])) ms, max \(ms(sorted[sorted.count - 1])) ms"
    }
}
