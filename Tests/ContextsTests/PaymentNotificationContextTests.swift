import Axiom
import AxiomTestSupport
import Capabilities
import CatalogClient
import Contexts
import Domain
import Foundation
import OrderClient
import PaymentClient
import Synchronization
import Testing

/// The payment notification context with real catalogue, order and payment
/// clients over a temp SQLite file, no HTTP, and a wall clock the test
/// moves: expiry without sleeping, and the repair of a payment change whose
/// order and stock steps a kill cut off.
@Suite(.serialized) struct PaymentNotificationContextTests {
    final class Clients: Sendable {
        let catalog = Mutex<CatalogClient?>(nil)
        let orders = Mutex<OrderClient?>(nil)
        let payments = Mutex<PaymentClient?>(nil)
    }

    struct Shop {
        let orchestrator: AxiomOrchestrator
        let catalog: CatalogClient
        let orders: OrderClient
        let payments: PaymentClient
        let context: PaymentNotificationContext
        let clock: ManualClock
        let directory: TempDirectory

        func stop() async { await orchestrator.shutdownClosingStorage() }

        func stock(_ id: ProductID) async throws -> Int { try await catalog.product(id).stock }

        /// What a checkout does before it answers: stock reserved and made
        /// final, the order placed, its payment opened.
        func place(_ product: Product, quantity: Int) async throws -> (Order, Payment) {
            let checkout = CheckoutID(UUID())
            _ = try await catalog.reserve(checkout, [StockLine(productID: product.id, quantity: quantity)])
            let cart = try PricedCart(lines: [PricedLine(productID: product.id, name: product.name, quantity: quantity,
                                                         unitPrice: product.price)], currency: .usd)
            let order = try await orders.place(checkoutID: checkout, userID: UserID(UUID()), cart: cart,
                                                     idempotencyKey: nil)
            _ = try await catalog.commitReservation(checkout)
            _ = try await orders.settle(order)
            let payment = try await payments.open(order, method: .provider)
            return (order, payment)
        }

        static func open(_ backend: StorageBackend, timeoutSeconds: Int64 = 900) async throws -> Shop {
            let directory = try TempDirectory(prefix: "payment-context")
            let clock = ManualClock()
            let database = try await backend.database(at: directory.path("shop.db"))
            let orchestrator = try await acquireOrchestrator()
            let schema = (CatalogClient.migrations + OrderClient.migrations + PaymentClient.migrations)
                .sorted { $0.version < $1.version }
            let storageType = try await backend.register(on: orchestrator, database: database, migrations: schema)
            try await orchestrator.registerCapability(MessageAuthenticator.self) { try MessageAuthenticator() }
            let made = Clients()
            try orchestrator.registerClient(CatalogClient.self, dependencies: [storageType]) { resolver in
                let client = CatalogClient(storage: try backend.access(resolver))
                made.catalog.withLock { $0 = client }
                return client
            }
            try orchestrator.registerClient(OrderClient.self, dependencies: [storageType]) { resolver in
                let client = OrderClient(storage: try backend.access(resolver), clock: clock)
                made.orders.withLock { $0 = client }
                return client
            }
            let settings = PaymentSettings(webhookSecret: "secret", timeoutSeconds: timeoutSeconds)
            try orchestrator.registerClient(PaymentClient.self, dependencies: [storageType, MessageAuthenticator.self]) {
                resolver in
                let client = PaymentClient(storage: try backend.access(resolver),
                                           authenticator: try resolver.handle(MessageAuthenticator.self),
                                           clock: clock, settings: settings)
                made.payments.withLock { $0 = client }
                return client
            }
            try await orchestrator.start()
            let context = try await orchestrator.createContext(PaymentNotificationContext.self, parent: nil)
            return Shop(orchestrator: orchestrator, catalog: try #require(made.catalog.withLock { $0 }),
                        orders: try #require(made.orders.withLock { $0 }),
                        payments: try #require(made.payments.withLock { $0 }), context: context, clock: clock,
                        directory: directory)
        }
    }

    func lamp(_ shop: Shop, stock: Int) async throws -> Product {
        try await shop.catalog.create(ProductDraft(
            sku: "LAMP-\(UUID().uuidString.prefix(8))", name: "Lamp", price: Money(amount: 2500, currency: .usd),
            stock: stock))
    }

    @Test(arguments: StorageBackend.all) func unpaidOrdersExpireWhenTheClockPassesTheirDeadline(backend: StorageBackend) async throws {
        let shop = try await Shop.open(backend, timeoutSeconds: 900)
        let product = try await lamp(shop, stock: 5)
        let (order, payment) = try await shop.place(product, quantity: 2)
        #expect(try await shop.stock(product.id) == 3)
        shop.clock.advance(by: .seconds(899))
        #expect(try await shop.context.sweep() == 0)
        #expect(try await shop.orders.order(order.id).status == .pending)
        shop.clock.advance(by: .seconds(1))
        #expect(try await shop.context.sweep() == 1)
        #expect(try await shop.orders.order(order.id).status == .cancelled)
        #expect(try await shop.payments.payment(payment.id).status == .expired)
        #expect(try await shop.stock(product.id) == 5)
        // Finished: nothing open in either client, and a second sweep returns no more stock.
        #expect(try await shop.payments.openPayments().isEmpty)
        #expect(try await shop.orders.openOrders().isEmpty)
        #expect(try await shop.context.sweep() == 0)
        #expect(try await shop.stock(product.id) == 5)
        await shop.stop()
    }

    /// Expiry keeps up with the rate at which orders go unpaid: a batch of
    /// expired payments is converged at once, so its orders' and stock's
    /// writes share group commits instead of waiting for one each, one
    /// payment after another (four per payment). Counted in commits, not
    /// timed.
    @Test func manyUnpaidOrdersExpireInFewerCommitsThanPayments() async throws {
        let shop = try await Shop.open(.sqlite, timeoutSeconds: 60)
        let product = try await lamp(shop, stock: 1_000)
        let count = 300
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<count { group.addTask { _ = try await shop.place(product, quantity: 1) } }
            try await group.waitForAll()
        }
        #expect(try await shop.stock(product.id) == 1_000 - count)
        shop.clock.advance(by: .seconds(60))
        let storage = try shop.orchestrator.capabilityRegistry.resolve(SQLiteStorage.self)
        let before = storage.metrics.commits
        #expect(try await shop.context.sweep() == count)
        let commits = storage.metrics.commits - before
        #expect(commits < count, "\(commits) commits to expire \(count) payments")
        #expect(try await shop.stock(product.id) == 1_000)
        #expect(try await shop.payments.openPayments().isEmpty)
        await shop.stop()
    }

    /// A kill after the payment's change committed and before its order
    /// moved leaves the payment open; the sweep finishes it, once, after it
    /// stayed open a while (sooner, it would race the request that is
    /// moving the order, and the order's history would name the repair).
    @Test(arguments: StorageBackend.all) func aPaymentChangeCutOffBeforeItsOrderMovedIsFinished(backend: StorageBackend) async throws {
        let shop = try await Shop.open(backend)
        let product = try await lamp(shop, stock: 10)
        let (paidOrder, paid) = try await shop.place(product, quantity: 1)
        let (cancelledOrder, _) = try await shop.place(product, quantity: 3)
        _ = try await shop.payments.apply(PaymentEvent(id: "evt-\(paid.id)", type: .paymentSucceeded,
                                                             paymentID: paid.id, amount: paid.amount))
        _ = try await shop.payments.orderCancelled(cancelledOrder)
        #expect(try await shop.orders.order(paidOrder.id).status == .pending)
        #expect(try await shop.payments.openPayments().count == 2)
        #expect(try await shop.stock(product.id) == 6)

        #expect(try await shop.context.sweep() == 0)
        #expect(try await shop.orders.order(paidOrder.id).status == .pending, "the sweep raced a change just made")
        #expect(try await shop.payments.openPayments().count == 2)
        shop.clock.advance(by: .seconds(2))
        #expect(try await shop.context.sweep() == 0)
        #expect(try await shop.orders.order(paidOrder.id).status == .confirmed)
        #expect(try await shop.orders.order(cancelledOrder.id).status == .cancelled)
        #expect(try await shop.stock(product.id) == 9)
        #expect(try await shop.payments.openPayments().isEmpty)
        _ = try await shop.context.sweep()
        #expect(try await shop.stock(product.id) == 9)
        await shop.stop()
    }

    @Test(arguments: StorageBackend.all) func aDeliveryIsNotReadUnlessItsSignatureHolds(backend: StorageBackend) async throws {
        let shop = try await Shop.open(backend)
        let decoded = Mutex(false)
        await #expect(throws: PaymentError.invalidSignature("missing")) {
            _ = try await shop.context.receive(signature: nil, body: Array("{}".utf8)) { _ in
                decoded.withLock { $0 = true }
                return .unhandled(id: "evt", type: "x")
            }
        }
        #expect(decoded.withLock { $0 } == false)
        await shop.stop()
    }
}
