import Axiom
import AxiomTestSupport
import Capabilities
import Domain
import Foundation
import OrderClient
import Testing

/// The webhook events an order's changes enqueue (`OrderClient(webhooks:)`):
/// in the change's transaction, so a refused change leaves none.
@Suite(.serialized) struct OrderWebhookEventTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("order-events-\(UUID().uuidString)")
    var path: String { directory.appendingPathComponent("orders.db").path }
    let user = UserID(UUID())
    let admin = OrderChangeCause(.admin(UserID(UUID())), reason: "test")

    func cart() throws -> PricedCart {
        try PricedCart(lines: [PricedLine(productID: ProductID(UUID()), name: "Lamp", quantity: 2,
                                          unitPrice: Money(amount: 1500, currency: .usd))], currency: .usd)
    }

    func place(_ run: OrderRun, checkout: CheckoutID = CheckoutID(UUID())) async throws -> Order {
        try await run.client.place(checkoutID: checkout, userID: user, cart: try cart(), idempotencyKey: nil)
    }

    @Test(arguments: StorageBackend.all) func placedShippedAndCancelledEachEnqueueTheirEvent(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await OrderRun.start(try await backend.database(at: path), backend: backend, webhooks: true)
        let checkout = CheckoutID(UUID())
        let order = try await place(run, checkout: checkout)
        // The same checkout again answers the order it placed: no second event.
        _ = try await place(run, checkout: checkout)
        var events = try await run.webhookEvents()
        #expect(events.map(\.type) == [.orderCreated])
        #expect(events.first?.subject == .order(order.id))
        #expect(events.first?.occurredAt == order.createdAt.millisecondsSince1970)
        #expect(events.first?.amount == nil && events.first?.threshold == nil)

        _ = try await run.client.transition(order.id, to: .confirmed, by: .system, cause: testCause)
        _ = try await run.client.address(order.id, to: OrderClientTests.address)
        run.clock.advance(by: .seconds(3))
        _ = try await run.client.transition(order.id, to: .shipped, by: .admin, cause: admin)
        let other = try await place(run)
        _ = try await run.client.transition(other.id, to: .cancelled, by: .customer, cause: testCause)
        events = try await run.webhookEvents()
        #expect(events.map(\.type) == [.orderCreated, .orderShipped, .orderCreated, .orderCancelled])
        #expect(events.map(\.subject) == [.order(order.id), .order(order.id), .order(other.id), .order(other.id)])
        #expect(events[1].occurredAt == run.clock.millisecondsSince1970())
        #expect(Set(events.map(\.id)).count == 4)
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func aRefusedChangeEnqueuesNothing(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await OrderRun.start(try await backend.database(at: path), backend: backend,
                                           unpaidLimits: UnpaidOrderLimits(orders: 1, units: 0), webhooks: true)
        let order = try await place(run)
        // Refused inside the write: pending cannot ship; a confirmed order
        // without an address cannot either; a second unpaid order is over the limit.
        await #expect(throws: OrderError.self) {
            _ = try await run.client.transition(order.id, to: .shipped, by: .admin, cause: admin)
        }
        _ = try await run.client.transition(order.id, to: .confirmed, by: .system, cause: testCause)
        await #expect(throws: OrderError.shippingAddressRequired(order.id)) {
            _ = try await run.client.transition(order.id, to: .shipped, by: .admin, cause: admin)
        }
        _ = try await run.client.transition(order.id, to: .cancelled, by: .admin, cause: admin)
        await #expect(throws: OrderError.self) {
            _ = try await run.client.transition(order.id, to: .cancelled, by: .admin, cause: admin)
        }
        let held = try await place(run)
        await #expect(throws: (any Error).self) { _ = try await place(run) }
        #expect(try await run.webhookEvents().map(\.type) == [.orderCreated, .orderCancelled, .orderCreated])
        #expect(try await run.webhookEvents().last?.subject == .order(held.id))
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func withWebhooksOffNothingIsEnqueued(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await OrderRun.start(try await backend.database(at: path), backend: backend)
        let order = try await place(run)
        _ = try await run.client.transition(order.id, to: .cancelled, by: .customer, cause: testCause)
        #expect(try await run.client.order(order.id).status == .cancelled)
        #expect(try await run.webhookEvents().isEmpty)
        await run.stop()
    }
}
