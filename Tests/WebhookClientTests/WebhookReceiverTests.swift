import Axiom
import AxiomTestSupport
import Capabilities
import Domain
import Foundation
import Testing
import TestSupport
@testable import WebhookClient

/// Deliveries to a real HTTPS receiver (`WebhookReceiver`: a Python server
/// on a CA it made, verifying with the `standardwebhooks` reference
/// library, not this service's code): signed and verified, both
/// signatures during a rotation, the same `webhook-id` on a retry, a 410
/// disabling the endpoint, and a private address refused at connect time
/// when the policy does not admit it.
@Suite(.serialized) struct WebhookReceiverTests {
    let directory = try! TempDirectory(prefix: "webhook-receiver")
    var path: String { directory.path("webhooks.db") }

    func endpoint(_ run: WebhookRun, _ receiver: WebhookReceiver, _ name: String,
                  behaviour: WebhookReceiver.Behaviour = .ok) async throws -> WebhookEndpointCreated {
        let made = try await run.client.create(WebhookEndpointDraft(url: receiver.url(name)))
        try receiver.register(name, secrets: [made.secret], behaviour: behaviour)
        return made
    }

    /// The receiver holds timestamps to its own clock: the test's clock
    /// starts at the real time.
    static func clock() -> ManualClock {
        ManualClock(wall: .milliseconds(Int64(Date().timeIntervalSince1970 * 1000)))
    }

    func onlyDelivery(_ run: WebhookRun, _ endpoint: String) async throws -> WebhookDelivery {
        try #require(try await run.client.deliveries(of: endpoint, status: nil, limit: 1, after: nil).items.first)
    }

    @Test(arguments: StorageBackend.all) func aDeliveryVerifiesWithTheReferenceLibraryAndARotationSignsTwice(backend: StorageBackend) async throws {
        let receiver = try WebhookReceiver()
        let run = try await WebhookRun.start(try await backend.database(at: path), backend: backend,
                                             caFile: receiver.caFile, clock: Self.clock())
        try await withCleanup({ await run.stop() }) {
            let made = try await endpoint(run, receiver, "shop")
            let event = run.event(.orderPaid)
            let body = Array(#"{"type":"order.paid","timestamp":"2026-01-01T00:00:00.000Z","data":{"id":"o1","version":3}}"#
                .utf8)
            try await run.client.publish(event, body: body)
            let delivery = try await onlyDelivery(run, made.endpoint.id)
            #expect(try await run.client.attempt(delivery.id) == nil, "succeeded: nothing more is due")
            let received = try receiver.waitForDeliveries(1)
            #expect(received.count == 1)
            let first = try #require(received.first)
            #expect(first.verified && first.error == nil && first.answer == "204")
            #expect(first.webhookID == event.id && first.signatures == 1 && first.matched == [0])
            #expect(first.type == "order.paid" && first.version == 3)
            #expect(Int64(first.webhookTimestamp ?? "") == run.clock.millisecondsSince1970() / 1000)
            let log = try await run.client.delivery(delivery.id)
            #expect(log.delivery.status == .succeeded && log.delivery.lastStatusCode == 204 && log.delivery.lastError == nil)
            #expect(log.attempts.count == 1 && log.attempts[0].statusCode == 204 && log.attempts[0].error == nil)
            #expect(try await run.client.endpoint(made.endpoint.id).lastSuccessAt != nil)

            // During the overlap both secrets sign; the receiver knows both.
            let rotated = try await run.client.rotateSecret(made.endpoint.id, overlapSeconds: 3600)
            try receiver.register("shop", secrets: [rotated.secret, made.secret])
            let next = run.event(.orderShipped)
            try await run.client.publish(next, body: body)
            let second = try #require(try await run.client.deliveries(of: made.endpoint.id, status: .pending, limit: 1,
                                                                      after: nil).items.first)
            #expect(try await run.client.attempt(second.id) == nil)
            let both = try #require(try receiver.waitForDeliveries(2).last)
            #expect(both.webhookID == next.id && both.verified && both.signatures == 2 && both.matched == [0, 1])
            // The previous one, alone, still verifies (when the overlap ends
            // it no longer signs: WebhookEndpointTests).
            try receiver.register("shop", secrets: [made.secret])
            _ = try await run.client.retry(second.id)
            #expect(try await run.client.attempt(second.id) == nil)
            let old = try #require(try receiver.waitForDeliveries(3).last)
            #expect(old.verified && old.webhookID == next.id && old.attempt == 2, "an admin's retry: the same webhook-id")
        }
    }

    @Test func aFailureIsRetriedWithTheSameIdAndA410DisablesTheEndpoint() async throws {
        let receiver = try WebhookReceiver()
        let settings = WebhookSettings(schedule: WebhookRetrySchedule(seconds: [0, 1, 1])!)
        let run = try await WebhookRun.start(path, settings: settings, caFile: receiver.caFile, mails: true,
                                             clock: Self.clock())
        try await withCleanup({ await run.stop() }) {
            let failing = try await endpoint(run, receiver, "failing", behaviour: .fail)
            let gone = try await endpoint(run, receiver, "gone", behaviour: .gone)
            let event = run.event(.orderCreated)
            try await run.client.publish(event, body: Array(#"{"type":"order.created"}"#.utf8))
            let toFailing = try await onlyDelivery(run, failing.endpoint.id)
            let toGone = try await onlyDelivery(run, gone.endpoint.id)

            let retry = try #require(try await run.client.attempt(toFailing.id))
            #expect((800...1200).contains(retry.delayMilliseconds))
            #expect(try await run.client.attempt(toFailing.id) != nil)
            #expect(try await run.client.attempt(toFailing.id) == nil, "three attempts, the schedule's")
            let failed = try await run.client.delivery(toFailing.id)
            #expect(failed.delivery.status == .failed && failed.attempts.map(\.statusCode) == [500, 500, 500])
            #expect(failed.delivery.lastError?.hasPrefix("answered 500") == true)
            let toReceiver = try receiver.waitForDeliveries(3) { $0.endpoint == "failing" }.filter { $0.endpoint == "failing" }
            #expect(toReceiver.map(\.attempt) == [1, 2, 3] && toReceiver.allSatisfy { $0.webhookID == event.id && $0.verified })

            #expect(try await run.client.attempt(toGone.id) == nil)
            let disabled = try await run.client.endpoint(gone.endpoint.id)
            #expect(disabled.status == .disabled && disabled.disabledReason == .gone)
            let goneLog = try await run.client.delivery(toGone.id)
            #expect(goneLog.delivery.status == .failed && goneLog.delivery.lastStatusCode == 410)
            let notices = try await run.rows("SELECT payload FROM jobs WHERE kind = 'webhook.notice'")
            #expect(try notices.map { try $0.get(0, as: String.self) }.contains { $0.contains(#""reason":"gone""#) })
            #expect(try await run.client.endpoint(failing.endpoint.id).isEnabled, "the other endpoint goes on")
            let outcomes = Dictionary(uniqueKeysWithValues: run.client.counters.outcomes.map { ($0.0.rawValue, $0.1) })
            #expect(outcomes["retried"] == 2 && outcomes["failed"] == 1 && outcomes["gone"] == 1)
            #expect(run.client.counters.latency.count == 4)
        }
    }

    /// A name that resolved to a public address when the endpoint was made
    /// may resolve to a private one later (DNS rebinding): the policy is
    /// asked again at every connect. Here the row is written as it would
    /// stand, pointing at the receiver on localhost.
    @Test func aPrivateAddressIsRefusedAtConnectTime() async throws {
        let receiver = try WebhookReceiver()
        let run = try await WebhookRun.start(path, caFile: receiver.caFile, allowsPrivate: false, clock: Self.clock())
        try await withCleanup({ await run.stop() }) {
            await #expect(throws: WebhookError.self) {
                try await run.client.create(WebhookEndpointDraft(url: receiver.url("private")))
            }
            let now = run.clock.millisecondsSince1970()
            try await run.database.writeTransaction {
                try $0.execute("""
                    INSERT INTO webhook_endpoints(id, url, description, event_types, status, secret, created_at, updated_at)
                    VALUES('ep_0000000000000000000000000000000a', ?, '', '', 'enabled', 'whsec_AAAA', ?, ?)
                    """, arguments: [.text(receiver.url("private")), .integer(now), .integer(now)])
            }
            try await run.client.publish(run.event(.orderCreated), body: Array("{}".utf8))
            let delivery = try await onlyDelivery(run, "ep_0000000000000000000000000000000a")
            #expect(try await run.client.attempt(delivery.id) != nil, "failed, retried on the schedule")
            let log = try await run.client.delivery(delivery.id)
            #expect(log.attempts.count == 1 && log.attempts[0].statusCode == nil)
            #expect(log.attempts[0].error?.contains("127.0.0.1") == true || log.attempts[0].error?.contains("::1") == true,
                    "\(log.attempts[0].error ?? "")")
            #expect(try receiver.deliveries().isEmpty, "nothing reached it")
        }
    }
}
