import Axiom
import AxiomTestSupport
import Capabilities
import Domain
import Foundation
@testable import OrderClient
import Testing

/// Orders read from SQLite per request (issue 12): nothing loaded at start,
/// idempotency by the unique index, pages as the in-memory list gave them.
extension OrderClientTests {
    @Test(arguments: StorageBackend.all) func aRetriedKeyGetsTheFirstOrderAfterARestartThatLoadedNothing(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        var run = try await OrderRun.start(database, backend: backend)
        let first = try await place(run, idempotencyKey: "once")
        for _ in 0..<40 {
            let order = try await place(run)
            _ = try await run.client.settle(order)
        }
        await run.stop()

        run = try await OrderRun.start(database, backend: backend)
        // Only the unsettled order is open: reconciliation reads one row, not 41.
        #expect(try await run.client.openOrders().map(\.id) == [first.id])
        let retried = try await run.client.place(checkoutID: CheckoutID(UUID()), userID: user, cart: try cart(9_999),
                                                       idempotencyKey: "once")
        #expect(retried == first)
        #expect(try await run.client.order(forCheckout: try #require(first.checkoutID)) == first)
        // Another user's same key is theirs.
        let other = try await run.client.place(checkoutID: CheckoutID(UUID()), userID: UserID(UUID()),
                                                     cart: try cart(), idempotencyKey: "once")
        #expect(other.id != first.id)
        await run.stop()
    }

    /// The pages from storage equal `Page.slice` over the user's orders
    /// sorted in memory (`newestFirst`), also with equal creation times
    /// (ties broken by id), at every page size.
    @Test(arguments: StorageBackend.all) func pagesFromStorageEqualTheInMemoryListsPages(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        let run = try await OrderRun.start(database, backend: backend)
        var placed: [Order] = []
        for _ in 0..<25 {
            placed.append(try await place(run))
        }
        _ = try await run.client.place(checkoutID: CheckoutID(UUID()), userID: UserID(UUID()), cart: try cart(),
                                             idempotencyKey: nil)
        let all = placed.filter { $0.userID == user }.sorted(by: Self.newestFirst)
        for limit in [1, 4, 7, 25, 100] {
            var cursor: String?
            repeat {
                let stored = try await run.client.orders(for: user, limit: limit, after: cursor)
                let expected = try Page.slice(all, limit: limit, after: cursor) { $0.id.description }
                #expect(stored == expected, "limit \(limit) after \(cursor ?? "start")")
                cursor = stored.nextCursor
            } while cursor != nil
        }
        await #expect(throws: ValidationError.self) {
            _ = try await run.client.orders(for: UserID(UUID()), limit: 3, after: placed[0].id.description)
        }
        await run.stop()
    }
}

extension OrderClientTests {
    /// Documents stored before OrderDocument (a default JSONEncoder's, its
    /// members in a per-process order; pretty-printed; one only JSONDecoder
    /// reads, a quantity of `2.0`) are read as they were, and a transition
    /// stores OrderDocument's text.
    @Test(arguments: StorageBackend.all) func documentsStoredByJSONEncoderAreStillRead(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        let run = try await OrderRun.start(database, backend: backend)
        let placed = try await place(run)
        let stored = try await run.database.readTransaction { handle -> String? in
            try handle.queryOne("SELECT document FROM orders WHERE id = ?", placed.id.description)?.get("document")
        }
        #expect(stored == OrderDocument.text(placed))
        let plain = String(decoding: try JSONEncoder().encode(placed), as: UTF8.self)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .prettyPrinted
        let pretty = String(decoding: try encoder.encode(placed), as: UTF8.self)
        let fractional = plain.replacingOccurrences(of: "\"quantity\":2", with: "\"quantity\":2.0")
        #expect(fractional != plain && OrderDocument.order(from: fractional) == nil)
        for document in [plain, pretty, fractional] {
            _ = try await run.database.writeTransaction { handle in
                try handle.execute("UPDATE orders SET document = ? WHERE id = ?", document, placed.id.description)
            }
            #expect(try await run.client.order(placed.id) == placed)
            #expect(try await run.client.orders(for: user, limit: 10, after: nil).items == [placed])
        }
        let cancelled = try await run.client.transition(placed.id, to: .cancelled, by: .customer, cause: testCause)
        let rewritten = try await run.database.readTransaction { handle -> String? in
            try handle.queryOne("SELECT document FROM orders WHERE id = ?", placed.id.description)?.get("document")
        }
        #expect(rewritten == OrderDocument.text(cancelled))
        await run.stop()
    }
}

extension OrderClientTests {
    /// Orders marked open in the `orders` row before migration 422 are the
    /// open orders after it, and settle from there; settled ones stay closed.
    @Test(arguments: StorageBackend.all) func ordersOpenBeforeTheOpenOrdersTableAreOpenAfterIt(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        let before = OrderClient.migrations.filter { $0.version < 422 }
        var run = try await OrderRun.start(path: database, backend: backend, migrations: before) { resolver in
            OrderClient(storage: try backend.access(resolver), clock: ManualClock())
        }
        let orders = try (0..<3).map { index in
            try Order.place(id: OrderID(UUID()), userID: user, cart: try cart(), createdAt: Timestamp(millisecondsSince1970: 1_000 + Int64(index)),
                            checkoutID: CheckoutID(UUID()))
        }
        _ = try await run.database.writeTransaction { handle in
            for (index, order) in orders.enumerated() {
                try handle.execute("""
                    INSERT INTO orders(id, user_id, status, created_at, checkout_id, document, open, lease_owner)
                    VALUES(?, ?, ?, ?, ?, ?, ?, 'old process')
                    """, order.id.description, order.userID.description, order.status.rawValue,
                    order.createdAt.millisecondsSince1970, try #require(order.checkoutID).description,
                    OrderDocument.text(order), index == 1 ? 0 : 1)
            }
        }
        await run.stop()

        run = try await OrderRun.start(database, backend: backend)
        #expect(try await run.client.openOrders().map(\.id) == [orders[0].id, orders[2].id])
        _ = try await run.client.settle(orders[0])
        #expect(try await run.client.openOrders().map(\.id) == [orders[2].id])
        await run.stop()
    }
}
