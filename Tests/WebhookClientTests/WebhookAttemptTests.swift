import Axiom
import AxiomTestSupport
import Capabilities
import Domain
import Foundation
import Testing
@testable import WebhookClient

/// A delivery's attempts where nothing answers (a port nothing listens
/// at): each failure logged and the next due per the schedule, the
/// endpoint disabled once it failed for `webhooks_disable_after` (the
/// admins' notice queued with it), an admin's retry, the schedule's
/// bounds, and the per-endpoint cap on attempts in flight.
@Suite(.serialized) struct WebhookAttemptTests {
    let directory = try! TempDirectory(prefix: "webhook-attempts")
    var path: String { directory.path("webhooks.db") }

    @Test func theStandardScheduleWithItsJitterAndRetryAfter() {
        let schedule = WebhookRetrySchedule.standard
        #expect(schedule.milliseconds == [0, 5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400].map { $0 * 1000 })
        for (made, step) in schedule.milliseconds.enumerated() {
            let low = schedule.delay(afterAttempts: made, unit: 0)!
            let high = schedule.delay(afterAttempts: made, unit: 0.999_999)!
            #expect(low == step * 8 / 10 && high <= step * 12 / 10 && high >= step * 1199 / 1000, "±20 % of \(step) ms")
        }
        #expect(WebhookRetrySchedule(seconds: [0, 0.2, 0.5])?.milliseconds == [0, 200, 500], "fractions for tests")
        #expect(schedule.delay(afterAttempts: schedule.attempts, unit: 0.5) == nil, "after the last: none")
        #expect(schedule.delay(afterAttempts: 1, unit: 0.5, retryAfter: 60_000) == 60_000, "a later Retry-After wins")
        #expect(schedule.delay(afterAttempts: 2, unit: 0.5, retryAfter: 1_000) == 300_000, "an earlier one does not")
        #expect(schedule.delay(afterAttempts: 1, unit: 0.5, retryAfter: 10 * 86_400_000) == 86_400_000, "capped at a day")
        #expect(WebhookRetrySchedule(seconds: []) == nil && WebhookRetrySchedule(seconds: [0, -1]) == nil)
    }

    @Test func answersAreSuccessGoneOrFailure() {
        let now: Int64 = 1_700_000_000_000
        #expect(WebhookVerdict.of(status: 204, retryAfter: "5", now: now) == .succeeded)
        #expect(WebhookVerdict.of(status: 299, retryAfter: nil, now: now) == .succeeded)
        #expect(WebhookVerdict.of(status: 410, retryAfter: nil, now: now) == .gone)
        #expect(WebhookVerdict.of(status: 301, retryAfter: nil, now: now) == .failed(retryAfter: nil), "not followed")
        #expect(WebhookVerdict.of(status: 500, retryAfter: "5", now: now) == .failed(retryAfter: nil))
        for status in [429, 502, 503, 504] {
            #expect(WebhookVerdict.of(status: status, retryAfter: "7", now: now) == .failed(retryAfter: 7000))
        }
        #expect(WebhookVerdict.of(status: 429, retryAfter: "soon", now: now) == .failed(retryAfter: nil))
        #expect(WebhookVerdict.describe(status: 500, body: Array("  oops\r\nline two ".utf8)) == "answered 500: oops line two", "CR LF is one character")
        #expect(WebhookVerdict.describe(status: 404, body: []) == "answered 404")
    }

    @Test(arguments: StorageBackend.all) func anEndpointFailingForDisableAfterIsDisabledAndTheAdminsAreTold(backend: StorageBackend) async throws {
        let settings = WebhookSettings(schedule: WebhookRetrySchedule(seconds: [0, 10, 10, 10, 10])!,
                                       disableAfterSeconds: 3600)
        let run = try await WebhookRun.start(try await backend.database(at: path), backend: backend, settings: settings,
                                             mails: true)
        try await withCleanup({ await run.stop() }) {
            let endpoint = try await run.client.create(WebhookEndpointDraft(url: closedURL)).endpoint
            let event = run.event(.orderCreated)
            try await run.client.publish(event, body: Array(#"{"a":1}"#.utf8))
            let delivery = try #require(try await run.client.deliveries(of: endpoint.id, status: nil, limit: 1, after: nil)
                .items.first)
            let retry = try #require(try await run.client.attempt(delivery.id))
            #expect((8_000...12_000).contains(retry.delayMilliseconds), "the schedule's second step, jittered")
            let log = try await run.client.delivery(delivery.id)
            #expect(log.delivery.status == .pending && log.delivery.attempts == 1)
            #expect(log.delivery.nextAttemptAt?.millisecondsSince1970 == run.clock.millisecondsSince1970() + retry.delayMilliseconds)
            #expect(log.attempts.count == 1 && log.attempts[0].statusCode == nil && log.attempts[0].error != nil)
            #expect(log.delivery.lastError == log.attempts[0].error)
            let failing = try await run.client.endpoint(endpoint.id)
            #expect(failing.failingSince?.millisecondsSince1970 == run.clock.millisecondsSince1970() && failing.isEnabled)

            // Still failing an hour later: disabled, this delivery failed, the admins told.
            run.clock.advance(by: .seconds(3600))
            #expect(try await run.client.attempt(delivery.id) == nil)
            let disabled = try await run.client.endpoint(endpoint.id)
            #expect(disabled.status == .disabled && disabled.disabledReason == .failing)
            let failed = try await run.client.delivery(delivery.id)
            #expect(failed.delivery.status == .failed && failed.attempts.count == 2)
            #expect(failed.delivery.lastError?.hasSuffix("so it is disabled") == true)
            let notices = try await run.rows("SELECT payload FROM jobs WHERE kind = 'webhook.notice'")
            #expect(notices.count == 1)
            #expect(try notices.first?.get(0, as: String.self).contains(#""reason":"failing""#) == true)

            // Its other deliveries fail at their turn, with no attempt.
            let later = run.event(.orderPaid)
            _ = try await run.client.update(endpoint.id, WebhookEndpointPatch(status: .enabled))
            #expect(try await run.client.endpoint(endpoint.id).failingSince == nil, "enabling ends the streak")
            try await run.client.publish(later, body: Array("{}".utf8))
            _ = try await run.client.update(endpoint.id, WebhookEndpointPatch(status: .disabled))
            let waiting = try #require(try await run.client.deliveries(of: endpoint.id, status: .pending, limit: 1, after: nil)
                .items.first)
            #expect(try await run.client.attempt(waiting.id) == nil)
            let ended = try await run.client.delivery(waiting.id)
            #expect(ended.delivery.status == .failed && ended.attempts.isEmpty)
            #expect(ended.delivery.lastError == "its endpoint is disabled (admin)")
            await #expect(throws: WebhookError.endpointDisabled(id: endpoint.id)) { try await run.client.retry(waiting.id) }
        }
    }

    @Test func theScheduleRunsOutAndAnAdminsRetryAttemptsOnceMore() async throws {
        let settings = WebhookSettings(schedule: WebhookRetrySchedule(seconds: [0, 1])!)
        let run = try await WebhookRun.start(path, settings: settings)
        try await withCleanup({ await run.stop() }) {
            let endpoint = try await run.client.create(WebhookEndpointDraft(url: closedURL)).endpoint
            try await run.client.publish(run.event(.orderCreated), body: Array("{}".utf8))
            let delivery = try #require(try await run.client.deliveries(of: endpoint.id, status: nil, limit: 1, after: nil)
                .items.first)
            #expect(try await run.client.attempt(delivery.id) != nil)
            run.clock.advance(by: .seconds(2))
            #expect(try await run.client.attempt(delivery.id) == nil, "two attempts, none left")
            #expect(try await run.client.delivery(delivery.id).delivery.status == .failed)
            // The job succeeded meanwhile; an admin's retry queues it again, due now.
            try await run.database.writeTransaction {
                try $0.execute("UPDATE jobs SET state = 'succeeded' WHERE kind = 'webhook.delivery'", arguments: [])
            }
            run.clock.advance(by: .seconds(60))
            let retried = try await run.client.retry(delivery.id)
            #expect(retried.status == .pending && retried.attempts == 2)
            #expect(retried.nextAttemptAt?.millisecondsSince1970 == run.clock.millisecondsSince1970())
            let queued = try await run.rows("SELECT run_at FROM jobs WHERE kind = 'webhook.delivery' AND state = 'queued'")
            #expect(try queued.map { try $0.get(0, as: Int64.self) } == [run.clock.millisecondsSince1970()])
            #expect(try await run.client.attempt(delivery.id) == nil, "its one more attempt failed: failed again")
            let log = try await run.client.delivery(delivery.id)
            #expect(log.delivery.status == .failed && log.attempts.count == 3)
            await #expect(throws: WebhookError.deliveryNotFound(id: "999")) { try await run.client.retry(999) }
        }
    }

    @Test func anEndpointWithAsManyAttemptsInFlightAsItMayPutsTheNextOff() {
        let load = EndpointLoad(limit: 2)
        #expect(load.enter("ep_a", delivery: 1, now: 0, unit: 0.5) == nil)
        #expect(load.enter("ep_a", delivery: 2, now: 0, unit: 0.5) == nil)
        let pause = load.enter("ep_a", delivery: 3, now: 0, unit: 0.5)
        #expect(pause != nil && pause! >= 50)
        #expect(load.enter("ep_b", delivery: 4, now: 0, unit: 0.5) == nil, "another endpoint is not held back")
        // More waiting behind a slow endpoint: longer pauses.
        load.leave("ep_a", latencyMilliseconds: 2_000)
        #expect(load.enter("ep_a", delivery: 3, now: 0, unit: 0.5) == nil, "a slot came free")
        let afterSlow = (5...9).map { load.enter("ep_a", delivery: Int64($0), now: 0, unit: 0.5)! }
        #expect(afterSlow == afterSlow.sorted() && afterSlow.last! > afterSlow.first!)
        #expect(afterSlow.allSatisfy { $0 <= 30_000 })
    }
}
