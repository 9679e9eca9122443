import Axiom
import AxiomTestSupport
import Capabilities
import Domain
import Foundation
import Testing
@testable import WebhookClient

/// Endpoints as admins manage them: made with a secret shown once, listed a
/// page at a time, changed, disabled and enabled, deleted; every failing
/// field named; the secret rotated with an overlap.
@Suite(.serialized) struct WebhookEndpointTests {
    let directory = try! TempDirectory(prefix: "webhook-endpoints")
    var path: String { directory.path("webhooks.db") }

    @Test(arguments: StorageBackend.all) func endpointsAreMadeListedChangedAndDeleted(backend: StorageBackend) async throws {
        let run = try await WebhookRun.start(try await backend.database(at: path), backend: backend)
        try await withCleanup({ await run.stop() }) {
            let made = try await run.client.create(WebhookEndpointDraft(url: "https://127.0.0.1:9/a",
                                                                       eventTypes: ["order.paid", "order.created", "order.paid"],
                                                                       description: "  warehouse  "))
            let endpoint = made.endpoint
            #expect(endpoint.id.hasPrefix("ep_") && endpoint.id.count == 35)
            #expect(endpoint.eventTypes == [.orderCreated, .orderPaid], "each once, in the list's order")
            #expect(endpoint.description == "warehouse" && endpoint.status == .enabled && endpoint.disabledReason == nil)
            #expect(endpoint.createdAt.millisecondsSince1970 == run.clock.millisecondsSince1970())
            // whsec_ and the base64 of 32 random bytes.
            #expect(made.secret.hasPrefix("whsec_"))
            #expect(Base64.decode(made.secret.dropFirst(6))?.count == 32)
            #expect(try await run.client.endpoint(endpoint.id) == endpoint)

            run.clock.advance(by: .seconds(1))
            let second = try await run.client.create(WebhookEndpointDraft(url: "https://127.0.0.1:9/b")).endpoint
            run.clock.advance(by: .seconds(1))
            let third = try await run.client.create(WebhookEndpointDraft(url: "https://127.0.0.1:9/c")).endpoint
            #expect(second.eventTypes.isEmpty && second.receives(.customerCreated), "none named: every type")
            let first = try await run.client.endpoints(limit: 2, after: nil)
            #expect(first.items.map(\.id) == [third.id, second.id] && first.nextCursor == second.id)
            let rest = try await run.client.endpoints(limit: 2, after: first.nextCursor)
            #expect(rest.items.map(\.id) == [endpoint.id] && rest.nextCursor == nil)
            await #expect(throws: ValidationError.self) { try await run.client.endpoints(limit: 2, after: "42") }

            run.clock.advance(by: .seconds(1))
            let disabled = try await run.client.update(endpoint.id, WebhookEndpointPatch(
                url: "https://127.0.0.1:9/moved", eventTypes: [], status: .disabled))
            #expect(disabled.url == "https://127.0.0.1:9/moved" && disabled.eventTypes.isEmpty)
            #expect(disabled.status == .disabled && disabled.disabledReason == .admin)
            #expect(disabled.description == "warehouse" && disabled.updatedAt > endpoint.updatedAt)
            let enabled = try await run.client.update(endpoint.id, WebhookEndpointPatch(status: .enabled))
            #expect(enabled.status == .enabled && enabled.disabledReason == nil)

            try await run.client.delete(endpoint.id)
            await #expect(throws: WebhookError.endpointNotFound(id: endpoint.id)) {
                try await run.client.endpoint(endpoint.id)
            }
            await #expect(throws: WebhookError.endpointNotFound(id: endpoint.id)) { try await run.client.delete(endpoint.id) }
            await #expect(throws: WebhookError.endpointNotFound(id: endpoint.id)) {
                try await run.client.update(endpoint.id, WebhookEndpointPatch(description: "x"))
            }
        }
    }

    @Test func everyFailingFieldIsNamedWithTheCodeOfWhatFailed() async throws {
        let run = try await WebhookRun.start(path)
        try await withCleanup({ await run.stop() }) {
            func refusal(_ draft: WebhookEndpointDraft) async -> WebhookError? {
                do {
                    _ = try await run.client.create(draft)
                    return nil
                } catch {
                    return error as? WebhookError
                }
            }
            let all = await refusal(WebhookEndpointDraft(url: "ftp://example.com/x", eventTypes: ["order.paid", "order.lost"],
                                                         description: "bell\u{7}"))
            #expect(all?.code == "validation_failed")
            if case .invalid(let errors) = all {
                #expect(errors.fields == ["url", "event_types[1]", "description"])
            } else {
                Issue.record("not a validation: \(String(describing: all))")
            }
            #expect(await refusal(WebhookEndpointDraft(url: "http://127.0.0.1:9/plain"))?.code == "webhook_url_invalid",
                    "http:// only with webhooks_allow_http")
            #expect(await refusal(WebhookEndpointDraft(url: "https://exa mple.com/"))?.code == "webhook_url_invalid")
            #expect(await refusal(WebhookEndpointDraft(url: ""))?.code == "webhook_url_invalid")
            #expect(await refusal(WebhookEndpointDraft(url: "https://127.0.0.1:9/" + String(repeating: "a", count: 2000)))?
                .code == "webhook_url_invalid")
            #expect(await refusal(WebhookEndpointDraft(url: "https://127.0.0.1:9/", eventTypes: ["nope", "order.paid", "x"]))?
                .code == "webhook_event_type_unknown")
            let listed = try await run.client.endpoints(limit: 10, after: nil)
            #expect(listed.items.isEmpty, "nothing was made")
        }
    }

    @Test(arguments: StorageBackend.all) func aRotatedSecretSignsBesideTheNewOneForItsOverlap(backend: StorageBackend) async throws {
        let run = try await WebhookRun.start(try await backend.database(at: path), backend: backend)
        try await withCleanup({ await run.stop() }) {
            let made = try await run.client.create(WebhookEndpointDraft(url: "https://127.0.0.1:9/a"))
            let id = made.endpoint.id
            func secrets() async throws -> [String] {
                let now = run.clock.millisecondsSince1970()
                return try await run.database.readTransaction { try WebhookEndpointStore.secrets($0, id: id, now: now) }
            }
            #expect(try await secrets() == [made.secret])
            let rotated = try await run.client.rotateSecret(id, overlapSeconds: 60)
            #expect(rotated.secret != made.secret && rotated.secret.hasPrefix("whsec_"))
            #expect(rotated.previousExpiresAt?.millisecondsSince1970 == run.clock.millisecondsSince1970() + 60_000)
            #expect(try await run.client.endpoint(id).previousSecretExpiresAt == rotated.previousExpiresAt)
            #expect(try await secrets() == [rotated.secret, made.secret], "the new one first, the previous beside it")
            run.clock.advance(by: .seconds(61))
            #expect(try await secrets() == [rotated.secret], "the overlap is over")
            let again = try await run.client.rotateSecret(id, overlapSeconds: 0)
            #expect(again.previousExpiresAt == nil)
            #expect(try await secrets() == [again.secret])
            await #expect(throws: ValidationError.self) { try await run.client.rotateSecret(id, overlapSeconds: 604_801) }
            await #expect(throws: ValidationError.self) { try await run.client.rotateSecret(id, overlapSeconds: -1) }
            await #expect(throws: WebhookError.endpointNotFound(id: "ep_none")) {
                try await run.client.rotateSecret("ep_none")
            }
        }
    }

    /// Standard Webhooks' own test vector (its libraries' tests): the same
    /// secret, id, timestamp and body give the same signature here.
    @Test func signaturesAreStandardWebhooks() throws {
        let signer = WebhookSigner(authenticator: try MessageAuthenticator())
        let body = Array(#"{"test": 2432232314}"#.utf8)
        #expect(signer.header(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: body,
                              secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"])
            == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        let both = signer.header(id: "msg_1", timestamp: 1, body: body,
                                 secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_" + Base64.encode(Array(repeating: 7, count: 32))])
        #expect(both.split(separator: " ").count == 2 && both.split(separator: " ").allSatisfy { $0.hasPrefix("v1,") })
    }
}
