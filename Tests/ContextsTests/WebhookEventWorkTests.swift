import Axiom
import AxiomTestSupport
import Capabilities
import Contexts
import Domain
import Foundation
import OrderClient
import Testing

/// The `webhook.event` work over the whole shop: an order's event carries
/// the order with its payment as the API shows it and its job's id as the
/// version; it waits while the order's checkout is open, and an order
/// whose checkout took it back is told to nobody; a deleted customer's
/// event (or one about no user at all) is dropped.
@Suite(.serialized) struct WebhookEventWorkTests {
    func storage(_ shop: ShopRun, _ backend: StorageBackend) throws -> any StorageCapability {
        let registry = shop.orchestrator.capabilityRegistry
        return backend == .sqlite ? try registry.resolve(SQLiteStorage.self) : try registry.resolve(PostgresStorage.self)
    }

    /// Enqueues `event`'s job as its producer would; answers the job's id.
    func enqueue(_ event: WebhookEvent, on storage: any StorageCapability) async throws -> Int64 {
        try await storage.writeTransaction { handle in
            try handle.enqueue(try event.request())
            return try handle.queryOne("SELECT id FROM jobs WHERE kind = 'webhook.event' AND unique_key = ?",
                                       event.id)!.get(0)
        }
    }

    func jobState(_ id: Int64, on storage: any StorageCapability) async throws -> (state: String, runAt: Int64) {
        try await storage.readTransaction {
            let row = try $0.queryOne("SELECT state, run_at FROM jobs WHERE id = ?", id)!
            return (try row.get(0), try row.get(1))
        }
    }

    func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<500 {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }

    @Test(arguments: StorageBackend.all)
    func anOrdersEventWaitsForItsCheckoutAndARolledBackOneIsToldToNobody(backend: StorageBackend) async throws {
        try await ShopRun.with(backend, works: [WebhookEventWork.self]) { shop in
            let storage = try storage(shop, backend)
            let admin = try await shop.feature(AdminContext.self, of: try await shop.admin())
            let endpoint = try await admin.createWebhook(WebhookEndpointDraft(url: "https://127.0.0.1:9/hooks")).endpoint
            let (mug, alice) = try await shop.mugAndAlice()
            _ = try await shop.feature(CartContext.self, of: alice).setQuantity(2, of: mug.id)
            let (placed, _) = try await shop.feature(CheckoutContext.self, of: alice).checkout(idempotencyKey: "k1")
            #expect(try await eventually {
                try await storage.readTransaction {
                    try $0.queryOne("SELECT 1 FROM open_orders WHERE order_id = ?", placed.order.id.description) == nil
                }
            }, "the checkout settles")

            let created = WebhookEvent(type: .orderCreated, subject: .order(placed.order.id),
                                       at: shop.clock.millisecondsSince1970())
            let job = try await enqueue(created, on: storage)
            #expect(try await eventually { try await jobState(job, on: storage).state == "succeeded" })
            let events = try await admin.webhookEvents(type: .orderCreated, since: nil, limit: 10, after: nil).items
            #expect(events.map(\.id) == [created.id])
            let body = try #require(try JSONSerialization.jsonObject(with: Data(events[0].body)) as? [String: Any])
            #expect(body["type"] as? String == "order.created")
            #expect(body["timestamp"] as? String == Timestamp(millisecondsSince1970: created.occurredAt).rfc3339)
            let data = try #require(body["data"] as? [String: Any])
            let served = try #require(try JSONSerialization.jsonObject(with: Data(placed.json)) as? NSDictionary)
            let withoutVersion = NSMutableDictionary(dictionary: data)
            withoutVersion.removeObject(forKey: "version")
            #expect(withoutVersion == served, "the order with its payment, as GET /orders/{id} shows it")
            #expect(data["version"] as? Int == Int(job))
            let deliveries = try await admin.webhookDeliveries(of: endpoint.id, status: .pending, limit: 10, after: nil)
            #expect(deliveries.items.map(\.eventID) == [created.id])

            // An order whose checkout has not finished: the event waits.
            let replica = OrderClient(storage: backend == .sqlite
                                          ? StorageAccess(try shop.orchestrator.capabilityRegistry.handle(SQLiteStorage.self))
                                          : StorageAccess(try shop.orchestrator.capabilityRegistry.handle(PostgresStorage.self)),
                                      clock: shop.clock, owner: "replica-2")
            let cart = try PricedCart(lines: [PricedLine(productID: mug.id, name: mug.name, quantity: 1,
                                                         unitPrice: mug.price)], currency: .usd)
            let open = try await replica.place(checkoutID: CheckoutID(UUID()), userID: alice.user.id, cart: cart,
                                               idempotencyKey: nil)
            let waiting = WebhookEvent(type: .orderCreated, subject: .order(open.id), at: shop.clock.millisecondsSince1970())
            let waitingJob = try await enqueue(waiting, on: storage)
            #expect(try await eventually {
                let state = try await jobState(waitingJob, on: storage)
                return state.state == "queued" && state.runAt > shop.clock.millisecondsSince1970()
            }, "snoozed while the order is open")
            // Its checkout took it back (the stock sold meanwhile): settled, cancelled by the system.
            let cancelled = try await replica.transition(open.id, to: .cancelled, by: .system,
                                                         cause: OrderChangeCause(.system, reason: "stock_sold_out"))
            _ = try await replica.settle(cancelled)
            shop.clock.advance(by: .seconds(61))
            #expect(try await eventually { try await jobState(waitingJob, on: storage).state == "succeeded" })
            let after = try await admin.webhookEvents(type: nil, since: nil, limit: 10, after: nil).items
            #expect(after.map(\.id) == [created.id], "no event for the rolled-back order")
        }
    }

    @Test func anEventAboutNoUserIsDropped() async throws {
        try await ShopRun.with(works: [WebhookEventWork.self]) { shop in
            let storage = try storage(shop, .sqlite)
            let admin = try await shop.feature(AdminContext.self, of: try await shop.admin())
            let bob = try await shop.customer("Bob")
            let told = WebhookEvent(type: .customerCreated, subject: .customer(bob.user.id), at: shop.clock.millisecondsSince1970())
            let toldJob = try await enqueue(told, on: storage)
            #expect(try await eventually { try await jobState(toldJob, on: storage).state == "succeeded" })
            let nobody = WebhookEvent(type: .customerCreated, subject: .customer(UserID(UUID())),
                                      at: shop.clock.millisecondsSince1970())
            let nobodyJob = try await enqueue(nobody, on: storage)
            #expect(try await eventually { try await jobState(nobodyJob, on: storage).state == "succeeded" })
            let events = try await admin.webhookEvents(type: .customerCreated, since: nil, limit: 10, after: nil).items
            #expect(events.map(\.id) == [told.id], "one that names no user is dropped")
            let body = try #require(try JSONSerialization.jsonObject(with: Data(events[0].body)) as? [String: Any])
            let data = try #require(body["data"] as? [String: Any])
            #expect(data["id"] as? String == bob.user.id.description && data["email"] as? String == "bob@example.com")
            #expect(data["version"] as? Int == Int(toldJob))
        }
    }
}
