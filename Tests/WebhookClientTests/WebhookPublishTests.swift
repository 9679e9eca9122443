import Axiom
import AxiomTestSupport
import Capabilities
import Domain
import Foundation
import Testing
@testable import WebhookClient

/// An event's fan-out: one pending delivery and one job per enabled
/// endpoint that receives its type, in the event's one write, once however
/// often it is published; a replay of what happened since a time; the
/// retention.
@Suite(.serialized) struct WebhookPublishTests {
    let directory = try! TempDirectory(prefix: "webhook-publish")
    var path: String { directory.path("webhooks.db") }

    @Test(arguments: StorageBackend.all) func anEventFansOutOnceToTheEnabledEndpointsThatReceiveIt(backend: StorageBackend) async throws {
        let run = try await WebhookRun.start(try await backend.database(at: path), backend: backend)
        try await withCleanup({ await run.stop() }) {
            let all = try await run.client.create(WebhookEndpointDraft(url: "https://127.0.0.1:9/all")).endpoint
            let paid = try await run.client.create(WebhookEndpointDraft(url: "https://127.0.0.1:9/paid",
                                                                       eventTypes: ["order.paid"])).endpoint
            let off = try await run.client.create(WebhookEndpointDraft(url: "https://127.0.0.1:9/off")).endpoint
            _ = try await run.client.update(off.id, WebhookEndpointPatch(status: .disabled))

            let created = run.event(.orderCreated)
            #expect(try await run.client.publish(created, body: Array(#"{"type":"order.created"}"#.utf8)) == 1)
            let paidEvent = run.event(.orderPaid)
            #expect(try await run.client.publish(paidEvent, body: Array(#"{"type":"order.paid"}"#.utf8)) == 2)
            // Published again (its job ran twice): nothing more.
            #expect(try await run.client.publish(paidEvent, body: Array(#"{"type":"order.paid"}"#.utf8)) == 0)

            let toAll = try await run.client.deliveries(of: all.id, status: nil, limit: 10, after: nil).items
            let toPaid = try await run.client.deliveries(of: paid.id, status: .pending, limit: 10, after: nil).items
            #expect(toAll.map(\.eventID) == [paidEvent.id, created.id], "newest first")
            #expect(toPaid.map(\.eventID) == [paidEvent.id])
            #expect(try await run.client.deliveries(of: off.id, status: nil, limit: 10, after: nil).items.isEmpty)
            #expect(toAll.allSatisfy { $0.status == .pending && $0.attempts == 0 && $0.lastError == nil })
            #expect(toAll.first?.nextAttemptAt?.millisecondsSince1970 == run.clock.millisecondsSince1970(),
                    "the schedule's first step is at once")
            // One job per delivery, due when its delivery is.
            let jobs = try await run.deliveryJobs()
            #expect(Set(jobs.keys) == Set((toAll + toPaid).map(\.id)))
            #expect(jobs.values.allSatisfy { $0.state == "queued" && $0.runAt == run.clock.millisecondsSince1970() })
            // Kept as fanned out: the body every attempt sends.
            let stored = try await run.client.events(type: .orderPaid, since: nil, limit: 10, after: nil).items
            #expect(stored.map(\.id) == [paidEvent.id] && stored.first?.body == Array(#"{"type":"order.paid"}"#.utf8))
            // Keyset pages of one.
            let firstPage = try await run.client.deliveries(of: all.id, status: nil, limit: 1, after: nil)
            let secondPage = try await run.client.deliveries(of: all.id, status: nil, limit: 1, after: firstPage.nextCursor)
            #expect((firstPage.items + secondPage.items).map(\.id) == toAll.map(\.id) && secondPage.nextCursor == nil)
            await #expect(throws: WebhookError.endpointNotFound(id: "ep_x")) {
                try await run.client.deliveries(of: "ep_x", status: nil, limit: 10, after: nil)
            }
            // A deleted endpoint's pending deliveries are cancelled with it.
            try await run.client.delete(paid.id)
            let cancelled = try await run.client.delivery(toPaid[0].id).delivery
            #expect(cancelled.status == .cancelled && cancelled.lastError == "its endpoint was deleted")
            #expect(try await run.client.attempt(cancelled.id) == nil, "its job finds nothing to do")
        }
    }

    @Test(arguments: StorageBackend.all) func aReplaySendsAgainWhatHappenedSinceATimeInBatches(backend: StorageBackend) async throws {
        let run = try await WebhookRun.start(try await backend.database(at: path), backend: backend)
        try await withCleanup({ await run.stop() }) {
            // Events before the endpoint existed, one of them before `since`.
            let old = run.event(.orderCreated, at: -60_000)
            let product = run.event(.productCreated, at: -1_000)
            let count = WebhookClient.replayBatch + 1
            let many = (0..<count).map { run.event(.orderPaid, at: -30_000 + Int64($0)) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for event in [old, product] + many {
                    group.addTask { try await run.client.publish(event, body: Array("{}".utf8)) }
                }
                try await group.waitForAll()
            }
            let orders = try await run.client.create(WebhookEndpointDraft(
                url: "https://127.0.0.1:9/orders", eventTypes: ["order.created", "order.paid"])).endpoint
            let since = Timestamp(millisecondsSince1970: run.clock.millisecondsSince1970() - 30_000)
            let first = try await run.client.replay(orders.id, since: since, after: nil)
            #expect(first.enqueued == WebhookClient.replayBatch && first.more && first.nextCursor != nil)
            let rest = try await run.client.replay(orders.id, since: since, after: first.nextCursor)
            #expect(rest.enqueued == 1 && !rest.more && rest.nextCursor == nil)
            let made = try await run.client.deliveries(of: orders.id, status: .pending, limit: 100, after: nil)
            #expect(made.items.allSatisfy { $0.eventType == "order.paid" }, "not the product's, not the one before since")
            var byEvent: [String: WebhookDelivery] = [:]
            var cursor: String?
            repeat {
                let page = try await run.client.deliveries(of: orders.id, status: nil, limit: 100, after: cursor)
                for delivery in page.items { byEvent[delivery.eventID] = delivery }
                cursor = page.nextCursor
            } while cursor != nil
            #expect(Set(byEvent.keys) == Set(many.map(\.id)))

            // Replayed again: the same deliveries, pending from their first
            // attempt, no second one (the oldest event's is in the first batch).
            let delivery = try #require(byEvent[many[0].id])
            try await run.database.writeTransaction {
                try $0.execute("UPDATE webhook_deliveries SET status = 'succeeded', attempts = 3 WHERE id = ?",
                               arguments: [.integer(delivery.id)])
            }
            run.clock.advance(by: .seconds(5))
            _ = try await run.client.replay(orders.id, since: since, after: nil)
            let again = try await run.client.delivery(delivery.id).delivery
            #expect(again.status == .pending && again.attempts == 0)
            #expect(again.nextAttemptAt?.millisecondsSince1970 == run.clock.millisecondsSince1970())
            let rows = try await run.rows("SELECT COUNT(*) FROM webhook_deliveries WHERE endpoint_id = ?", [.text(orders.id)])
            #expect(try rows[0].get(0, as: Int64.self) == Int64(count))
            #expect(try await run.deliveryJobs()[delivery.id]?.state == "queued")

            await #expect(throws: ValidationError.self) { try await run.client.replay(orders.id, since: since, after: "x") }
            _ = try await run.client.update(orders.id, WebhookEndpointPatch(status: .disabled))
            await #expect(throws: WebhookError.endpointDisabled(id: orders.id)) {
                try await run.client.replay(orders.id, since: since, after: nil)
            }
        }
    }

    @Test(arguments: StorageBackend.all) func eventsAreListedNewestFirstByTypeAndTime(backend: StorageBackend) async throws {
        let run = try await WebhookRun.start(try await backend.database(at: path), backend: backend)
        try await withCleanup({ await run.stop() }) {
            let events = [run.event(.orderCreated, at: -3000), run.event(.orderPaid, at: -2000),
                          run.event(.orderCreated, at: -1000)]
            for event in events { try await run.client.publish(event, body: Array("{}".utf8)) }
            let all = try await run.client.events(type: nil, since: nil, limit: 2, after: nil)
            #expect(all.items.map(\.id) == [events[2].id, events[1].id])
            let next = try await run.client.events(type: nil, since: nil, limit: 2, after: all.nextCursor)
            #expect(next.items.map(\.id) == [events[0].id] && next.nextCursor == nil)
            let created = try await run.client.events(type: .orderCreated, since: nil, limit: 10, after: nil)
            #expect(created.items.map(\.id) == [events[2].id, events[0].id])
            let recent = try await run.client.events(
                type: nil, since: Timestamp(millisecondsSince1970: run.clock.millisecondsSince1970() - 2000), limit: 10,
                after: nil)
            #expect(recent.items.map(\.id) == [events[2].id, events[1].id])
            #expect(recent.items[0].occurredAt.millisecondsSince1970 == events[2].occurredAt)
        }
    }

    @Test(arguments: StorageBackend.all) func theRetentionPrunesOldEventsAndFinishedDeliveries(backend: StorageBackend) async throws {
        let settings = WebhookSettings(retentionSeconds: 3600)
        let run = try await WebhookRun.start(try await backend.database(at: path), backend: backend, settings: settings)
        try await withCleanup({ await run.stop() }) {
            let endpoint = try await run.client.create(WebhookEndpointDraft(url: closedURL)).endpoint
            let finished = run.event(.orderCreated)
            let pending = run.event(.orderPaid)
            try await run.client.publish(finished, body: Array("{}".utf8))
            try await run.client.publish(pending, body: Array("{}".utf8))
            let deliveries = try await run.client.deliveries(of: endpoint.id, status: nil, limit: 10, after: nil).items
            let done = try #require(deliveries.first { $0.eventID == finished.id })
            // One attempt logged (refused: nothing listens), then finished.
            #expect(try await run.client.attempt(done.id) != nil)
            try await run.database.writeTransaction {
                try $0.execute("UPDATE webhook_deliveries SET status = 'failed' WHERE id = ?", arguments: [.integer(done.id)])
            }
            run.clock.advance(by: .seconds(1800))
            let young = run.event(.orderShipped)
            try await run.client.publish(young, body: Array("{}".utf8))
            let early = try await run.client.prune()
            #expect(early.deliveries == 0 && early.events == 0, "nothing is an hour old yet")
            run.clock.advance(by: .seconds(1801))
            let removed = try await run.client.prune()
            #expect(removed.deliveries == 1 && removed.events == 2)
            await #expect(throws: WebhookError.deliveryNotFound(id: String(done.id))) { try await run.client.delivery(done.id) }
            #expect(try await run.rows("SELECT id FROM webhook_attempts").isEmpty, "its attempts went with it")
            let left = try await run.client.deliveries(of: endpoint.id, status: nil, limit: 10, after: nil).items
            #expect(Set(left.map(\.eventID)) == [pending.id, young.id], "a pending delivery is kept")
            #expect(try await run.client.events(type: nil, since: nil, limit: 10, after: nil).items.map(\.id) == [young.id])
            // Its event pruned, the pending delivery fails at its turn.
            let orphan = try #require(left.first { $0.eventID == pending.id })
            #expect(try await run.client.attempt(orphan.id) == nil)
            #expect(try await run.client.delivery(orphan.id).delivery.lastError == "its event was pruned (webhooks_retention)")
        }
    }
}
