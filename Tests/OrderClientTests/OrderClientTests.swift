import Axiom
import AxiomTestSupport
import Capabilities
import Domain
import Foundation
import OrderClient
import Synchronization
import Testing

/// One "process run" on a database file: orchestrator, storage, the order
/// client, whose creation times come from the run's clock.
typealias OrderRun = ClientRun<OrderClient>

extension ClientRun where C == OrderClient {
    static func start(_ path: String, backend: StorageBackend = .sqlite, unpaidLimits: UnpaidOrderLimits = .unbounded,
                      webhooks: Bool = false) async throws -> OrderRun {
        let clock = ManualClock()
        return try await start(path: path, backend: backend, migrations: OrderClient.migrations, clock: clock) { resolver in
            OrderClient(storage: try backend.access(resolver), clock: clock, unpaidLimits: unpaidLimits,
                        webhooks: webhooks)
        }
    }
}

@Suite(.serialized) struct OrderClientTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("order-client-\(UUID().uuidString)")
    var path: String { directory.appendingPathComponent("orders.db").path }
    let user = UserID(UUID())

    func cart(_ amount: Int64 = 1500) throws -> PricedCart {
        try PricedCart(lines: [PricedLine(productID: ProductID(UUID()), name: "Lamp", quantity: 2,
                                          unitPrice: Money(amount: amount, currency: .usd))], currency: .usd)
    }

    /// A new checkout's order for `user`, placed through the client.
    static let address = ShippingAddress(name: "Ana López", lines: ["Calle Mayor 1", "2º B"], city: "Madrid",
                                         postalCode: "28013", country: "ES", email: "ana@example.com")

    func place(_ run: OrderRun, idempotencyKey: String? = nil) async throws -> Order {
        try await run.client.place(checkoutID: CheckoutID(UUID()), userID: user, cart: try cart(),
                                         idempotencyKey: idempotencyKey)
    }

    /// The order of a user's pages: created_at, ties by id, descending.
    static func newestFirst(_ a: Order, _ b: Order) -> Bool {
        (a.createdAt, a.id.description) > (b.createdAt, b.id.description)
    }

    @Test(arguments: StorageBackend.all) func placingIsIdempotentByCheckoutAndByKey(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        let run = try await OrderRun.start(database, backend: backend)
        let checkout = CheckoutID(UUID())
        let placed = try await run.client.place(checkoutID: checkout, userID: user, cart: try cart(), idempotencyKey: "k")
        #expect(placed.status == .pending)
        #expect(placed.total == Money(amount: 3000, currency: .usd))
        let sameCheckout = try await run.client.place(checkoutID: checkout, userID: user, cart: try cart(), idempotencyKey: nil)
        #expect(sameCheckout == placed)
        let sameKey = try await place(run, idempotencyKey: "k")
        #expect(sameKey == placed)
        #expect(try await run.client.orders(for: user, limit: 100, after: nil).items == [placed])
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func aKeyIsKeptForItsTimeAndAnswersOnlyItsOwnRequest(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        let run = try await OrderRun.start(database, backend: backend)
        let lines = [CartLine(productID: ProductID(UUID()), quantity: 2)]
        let asked = CheckoutFingerprint(lines: lines)
        let other = CheckoutFingerprint(lines: [CartLine(productID: lines[0].productID, quantity: 3)])
        #expect(asked == CheckoutFingerprint(lines: lines) && asked != other)
        let placed = try await run.client.place(checkoutID: CheckoutID(UUID()), userID: user, cart: try cart(),
                                                      idempotencyKey: "k", fingerprint: asked)
        #expect(try await run.client.order(userID: user, idempotencyKey: "k", matching: asked) == placed)
        #expect(try await run.client.order(userID: user, idempotencyKey: "k", matching: nil) == placed)
        await #expect(throws: OrderError.idempotencyKeyReused) {
            _ = try await run.client.order(userID: user, idempotencyKey: "k", matching: other)
        }
        await #expect(throws: OrderError.idempotencyKeyReused) {
            _ = try await run.client.place(checkoutID: CheckoutID(UUID()), userID: user, cart: try cart(),
                                                 idempotencyKey: "k", fingerprint: other)
        }
        // A day later (the default time) the key is free: it starts a new order.
        run.clock.advance(by: .seconds(86_401))
        #expect(try await run.client.order(userID: user, idempotencyKey: "k", matching: other) == nil)
        let again = try await run.client.place(checkoutID: CheckoutID(UUID()), userID: user, cart: try cart(),
                                                     idempotencyKey: "k", fingerprint: other)
        #expect(again.id != placed.id)
        #expect(try await run.client.order(userID: user, idempotencyKey: "k", matching: other) == again)
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func twentyConcurrentPlacementsWithOneKeyMakeOneOrder(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        let run = try await OrderRun.start(database, backend: backend)
        let client = run.client
        let priced = try cart()
        let buyer = user
        let ids = try await withThrowingTaskGroup(of: OrderID.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await client.place(checkoutID: CheckoutID(UUID()), userID: buyer, cart: priced, idempotencyKey: "retry").id
                }
            }
            var ids: Set<OrderID> = []
            for try await id in group { ids.insert(id) }
            return ids
        }
        #expect(ids.count == 1)
        #expect(try await client.orders(for: buyer, limit: 100, after: nil).items.count == 1)
        await run.stop()
        let reopened = try await OrderRun.start(database, backend: backend)
        #expect(try await reopened.client.orders(for: buyer, limit: 100, after: nil).items.map(\.id) == Array(ids))
        #expect(try await reopened.client.order(userID: buyer, idempotencyKey: "retry", matching: nil)?.id == ids.first)
        await reopened.stop()
    }

    @Test(arguments: StorageBackend.all) func statusMovesOnlyAlongTheTableAndSurvivesARestart(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        var run = try await OrderRun.start(database, backend: backend)
        let order = try await place(run)
        await #expect(throws: OrderError.self) { _ = try await run.client.transition(order.id, to: .shipped, by: .admin, cause: testCause) }
        let paid = OrderChangeCause(.provider, reason: "payment.succeeded")
        _ = try await run.client.transition(order.id, to: .confirmed, by: .system, cause: paid)
        await #expect(throws: OrderError.self) { _ = try await run.client.transition(order.id, to: .shipped, by: .customer, cause: testCause) }
        await #expect(throws: OrderError.shippingAddressRequired(order.id)) {
            _ = try await run.client.transition(order.id, to: .shipped, by: .admin, cause: testCause)
        }
        let addressed = try await run.client.address(order.id, to: Self.address)
        #expect(addressed.shippingAddress == Self.address && addressed.status == .confirmed)
        await run.stop()

        run = try await OrderRun.start(database, backend: backend)
        #expect(try await run.client.order(order.id) == addressed)
        let admin = UserID(UUID())
        let shipped = try await run.client.transition(order.id, to: .shipped, by: .admin,
                                                             cause: OrderChangeCause(.admin(admin), reason: "shipped"))
        await #expect(throws: OrderError.shippingAddressLocked(order.id, status: .shipped)) {
            _ = try await run.client.address(order.id, to: Self.address)
        }
        await run.stop()

        run = try await OrderRun.start(database, backend: backend)
        #expect(try await run.client.order(order.id) == shipped)
        // Each change that committed is in the history, with its cause; the
        // refused ones left nothing.
        let history = try await run.client.history(of: order.id)
        #expect(history.map(\.from) == [nil, .pending, .confirmed])
        #expect(history.map(\.status) == [.pending, .confirmed, .shipped])
        #expect(history.map(\.cause) == [OrderChangeCause(.customer(user), reason: "checkout"), paid,
                                         OrderChangeCause(.admin(admin), reason: "shipped")])
        #expect(history.first?.at == order.createdAt)
        #expect(try await run.client.openOrders().map(\.status) == [.shipped], "placed, not yet settled: open")
        _ = try await run.client.settle(order)
        #expect(try await run.client.openOrders().isEmpty)
        await run.stop()
    }

    /// A settle answers the order as stored: the value it was given while
    /// the status is unchanged, the stored one once another request moved
    /// it; an unknown order is `order_not_found`, and nothing is settled.
    @Test(arguments: StorageBackend.all) func settlingAnswersTheOrderAsStoredNow(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        let run = try await OrderRun.start(database, backend: backend)
        let kept = try await place(run)
        let moved = try await place(run)
        let confirmed = try await run.client.transition(moved.id, to: .confirmed, by: .system, cause: testCause)

        #expect(try await run.client.settle(kept) == kept)
        // `moved` is the pending value read before the confirmation.
        #expect(try await run.client.settle(moved) == confirmed)
        let stranger = try Order.place(id: OrderID(UUID()), userID: user, cart: try cart(),
                                       createdAt: Timestamp(millisecondsSince1970: 0), checkoutID: CheckoutID(UUID()))
        await #expect(throws: EntityError.notFound(entity: "order", id: stranger.id.description)) {
            _ = try await run.client.settle(stranger)
        }
        #expect(try await run.client.openOrders().isEmpty)
        await run.stop()
    }

    /// `settleSoon` answers at once; the queued settles land after, and a
    /// stop waits for them, so the next start has nothing to reconcile.
    @Test(arguments: StorageBackend.all) func queuedSettlesLandBeforeAStopEnds(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        var run = try await OrderRun.start(database, backend: backend)
        var placed: [Order] = []
        for _ in 0..<70 {  // more than two statements' worth (32 ids each)
            placed.append(try await place(run))
        }
        #expect(try await run.client.openOrders(limit: 100).count == 70)
        for order in placed {
            #expect(try await run.client.settleSoon(order) == order)
        }
        await run.stop()

        run = try await OrderRun.start(database, backend: backend)
        #expect(try await run.client.openOrders(limit: 100).isEmpty)
        await run.stop()
    }

    /// A customer may cancel as soon as the checkout answers, before its
    /// queued settle lands: the cancellation reopened the order until its
    /// stock is returned, and the late settle must not close it.
    @Test(arguments: StorageBackend.all) func aQueuedSettleLeavesAnOrderCancelledMeanwhileOpen(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        var run = try await OrderRun.start(database, backend: backend)
        let placed = try await place(run)
        let cancelled = try await run.client.transition(placed.id, to: .cancelled, by: .customer, cause: testCause)
        _ = try await run.client.settleSoon(placed)
        await run.stop()

        run = try await OrderRun.start(database, backend: backend)
        #expect(try await run.client.openOrders().map(\.id) == [cancelled.id])
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func oneHundredTwentyOrdersPageNewestFirstWithoutGapsOrRepeats(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        let run = try await OrderRun.start(database, backend: backend)
        var placed: Set<OrderID> = []
        for _ in 0..<120 {
            placed.insert(try await place(run).id)
        }
        var pages: [[Order]] = []
        var cursor: String?
        repeat {
            let page = try await run.client.orders(for: user, limit: 100, after: cursor)
            pages.append(page.items)
            cursor = page.nextCursor
        } while cursor != nil
        #expect(pages.map(\.count) == [100, 20])
        let seen = pages.flatMap { $0 }
        #expect(Set(seen.map(\.id)) == placed)
        #expect(seen.count == 120)
        // Newest first: created_at descending, ties broken by id descending.
        #expect(zip(seen, seen.dropFirst()).allSatisfy { Self.newestFirst($0, $1) })
        #expect(try await run.client.orders(for: UserID(UUID()), limit: 10, after: nil).items.isEmpty)
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func listsNewestFirstAPageAtATime(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        let run = try await OrderRun.start(database, backend: backend)
        var placed: [OrderID] = []
        for _ in 0..<7 {
            placed.append(try await place(run).id)
            run.clock.advance(by: .milliseconds(2))  // distinct creation times, so "newest" is defined
        }
        var seen: [OrderID] = []
        var cursor: String?
        repeat {
            let page = try await run.client.orders(for: user, limit: 3, after: cursor)
            seen += page.items.map(\.id)
            cursor = page.nextCursor
        } while cursor != nil
        #expect(seen == placed.reversed())
        await #expect(throws: ValidationError.self) { _ = try await run.client.orders(for: user, limit: 3, after: "bogus") }
        await run.stop()
    }
}

/// The cause of a status change in tests that are not about the history.
let testCause = OrderChangeCause(.system, reason: "test")
