import Foundation
import Testing
import TestSupport

/// The webhooks through the real binary to a real HTTPS receiver
/// (`WebhookReceiver`: a trustme CA it made, every delivery verified with
/// the `standardwebhooks` reference library): endpoints made, listed,
/// changed and deleted by admins with every refusal's code; a checkout's
/// and a payment's events delivered, signed, with the order as the API
/// shows it and growing versions; both signatures during a rotation; the
/// delivery log, a retry under the same `webhook-id`, a 410 disabling its
/// endpoint while the others go on; and, with private addresses refused,
/// the SSRF refusals with a 422 naming the address.
@Suite(.serialized) struct WebhookFlowTests {
    typealias Shop = PaymentShop

    static func arguments(_ receiver: WebhookReceiver) -> [String] {
        ["--webhooks-allow-private", "true", "--webhooks-ca-file", receiver.caFile ?? "",
         "--webhooks-retry-schedule", "0,1,1,1,1"]
    }

    static func code(_ api: Shop.API, _ response: RawClient.Response) -> String? {
        api.object(response)["code"] as? String
    }

    /// Polls `condition` (bounded: 30 s) until it holds; whether it did.
    static func within30Seconds(_ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return try condition()
    }

    static func fields(_ api: Shop.API, _ response: RawClient.Response) -> [String] {
        (api.object(response)["errors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
    }

    @Test func endpointsAreManagedAndEveryDeliveryVerifiesWithTheReferenceLibrary() throws {
        let receiver = try WebhookReceiver()
        try Shop.run(stock: 10, arguments: Self.arguments(receiver)) { shop, api in
            let admin = shop.admin
            // Refusals, each with its code; nothing is made.
            let bad = try api.call("POST", "/admin/webhooks",
                                   json: #"{"url":"ftp://x","event_types":["order.paid","order.lost"],"description":"a\u0007"}"#,
                                   token: admin)
            #expect(bad.status == 422 && Self.code(api, bad) == "validation_failed")
            #expect(Self.fields(api, bad) == ["url", "event_types[1]", "description"])
            let plain = try api.call("POST", "/admin/webhooks", json: #"{"url":"http://127.0.0.1:9/x"}"#, token: admin)
            #expect(plain.status == 422 && Self.code(api, plain) == "webhook_url_invalid")
            let unknown = try api.call("POST", "/admin/webhooks",
                                       json: #"{"url":"\#(receiver.url("x"))","event_types":["nope"]}"#, token: admin)
            #expect(unknown.status == 422 && Self.code(api, unknown) == "webhook_event_type_unknown")
            let missing = try api.call("POST", "/admin/webhooks", json: #"{"description":"no url"}"#, token: admin)
            #expect(missing.status == 422 && Self.fields(api, missing) == ["url"])
            let stranger = try api.call("POST", "/admin/webhooks", json: #"{"url":"\#(receiver.url("x"))","secret":"s"}"#,
                                        token: admin)
            #expect(stranger.status == 422 && Self.fields(api, stranger) == ["secret"])
            #expect(try api.call("GET", "/admin/webhooks?colour=red", token: admin).status == 422)
            let customer = try shop.customer("nosy")
            #expect(try api.call("GET", "/admin/webhooks", token: customer).status == 403)
            #expect(try api.call("GET", "/admin/webhooks").status == 401)
            #expect((api.object(try api.call("GET", "/admin/webhooks", token: admin))["items"] as? [Any])?.isEmpty == true)

            // Two endpoints: the shop's, for order events, and one that answers 410.
            let made = try api.call("POST", "/admin/webhooks", json: """
                {"url":"\(receiver.url("shop"))","event_types":["order.created","order.paid"],"description":"warehouse"}
                """, token: admin)
            #expect(made.status == 201)
            let endpoint = api.object(made)
            let id = try #require(endpoint["id"] as? String)
            let secret = try #require(endpoint["secret"] as? String)
            #expect(made.header("location") == "/admin/webhooks/\(id)")
            #expect(secret.hasPrefix("whsec_") && endpoint["status"] as? String == "enabled")
            #expect(endpoint["event_types"] as? [String] == ["order.created", "order.paid"])
            try receiver.register("shop", secrets: [secret])
            let readResponse = try api.call("GET", "/admin/webhooks/\(id)", token: admin)
            try JSONFieldOrderTests.expectOrder(try JSONFieldOrderTests.Reader.parse(readResponse.body).keys, "WebhookEndpoint")
            let read = api.object(readResponse)
            #expect(read["secret"] == nil, "the secret is shown once")
            #expect(read["description"] as? String == "warehouse")
            let goneMade = api.object(try api.call("POST", "/admin/webhooks", json: #"{"url":"\#(receiver.url("gone"))"}"#,
                                                   token: admin))
            let goneID = try #require(goneMade["id"] as? String)
            try receiver.register("gone", secrets: [try #require(goneMade["secret"] as? String)], behaviour: .gone)

            // A checkout and its payment: order.created, then order.paid.
            let buyer = try shop.customer("buyer")
            let placed = try shop.checkout(buyer)
            let order = try #require(placed["id"] as? String)
            #expect(try shop.deliver(try shop.sign(placed)).status == 200)
            let delivered = try receiver.waitForDeliveries(2) { $0.endpoint == "shop" && $0.dataID == order }
                .filter { $0.endpoint == "shop" }
            #expect(delivered.allSatisfy { $0.verified && $0.answer == "204" && $0.signatures == 1 }, "\(delivered)")
            #expect(Set(delivered.compactMap(\.type)) == ["order.created", "order.paid"])
            let created = try #require(delivered.first { $0.type == "order.created" })
            let paid = try #require(delivered.first { $0.type == "order.paid" })
            #expect((created.version ?? 0) < (paid.version ?? 0), "versions grow with the order's changes")
            #expect(Set(delivered.compactMap(\.webhookID)).count == 2)

            // The 410 endpoint is disabled (gone); the shop's goes on.
            #expect(try Self.within30Seconds {
                api.object(try api.call("GET", "/admin/webhooks/\(goneID)", token: admin))["disabled_reason"] as? String == "gone"
            })
            #expect(api.object(try api.call("GET", "/admin/webhooks/\(id)", token: admin))["status"] as? String == "enabled")

            // The log: the shop's deliveries, one with its attempt.
            let pageResponse = try api.call("GET", "/admin/webhooks/\(id)/deliveries?status=succeeded", token: admin)
            let ordered = try JSONFieldOrderTests.Reader.parse(pageResponse.body)
            try JSONFieldOrderTests.expectOrder(ordered["items"]?.elements.first?.keys ?? [], "WebhookDelivery")
            let page = api.object(pageResponse)
            let deliveries = try #require(page["items"] as? [[String: Any]])
            #expect(deliveries.count == 2 && page["next_cursor"] is NSNull)
            let deliveryID = try #require(deliveries.first?["id"] as? Int)
            let log = api.object(try api.call("GET", "/admin/webhook-deliveries/\(deliveryID)", token: admin))
            let attempts = try #require(log["log"] as? [[String: Any]])
            #expect(attempts.count == 1 && attempts[0]["status_code"] as? Int == 204 && attempts[0]["latency_ms"] is Int)
            #expect(try api.call("GET", "/admin/webhook-deliveries/abc", token: admin).status == 404)
            #expect(Self.code(api, try api.call("GET", "/admin/webhooks/\(id)/deliveries?status=lost", token: admin))
                    == "validation_failed")

            // A rotation: both signatures until the overlap ends.
            let rotated = api.object(try api.call("POST", "/admin/webhooks/\(id)/rotate-secret",
                                                  json: #"{"overlap_seconds":600}"#, token: admin))
            let newSecret = try #require(rotated["secret"] as? String)
            #expect(rotated["previous_secret_expires_at"] is String)
            try receiver.register("shop", secrets: [newSecret, secret])
            // An admin's retry: attempted again now, under the same webhook-id.
            let retried = try api.call("POST", "/admin/webhook-deliveries/\(deliveryID)/retry", token: admin)
            #expect(retried.status == 202 && api.object(retried)["status"] as? String == "pending")
            let again = try #require(try receiver.waitForDeliveries(1) { $0.endpoint == "shop" && $0.attempt == 2 }
                .first { $0.endpoint == "shop" && $0.attempt == 2 })
            #expect(again.verified && again.signatures == 2 && again.matched == [0, 1])
            #expect(delivered.contains { $0.webhookID == again.webhookID })

            // The events, newest first, with the bodies sent.
            let events = api.object(try api.call("GET", "/admin/webhook-events?type=order.paid", token: admin))
            let items = try #require(events["items"] as? [[String: Any]])
            #expect(items.count == 1 && items[0]["id"] as? String == paid.webhookID)
            #expect(((items[0]["payload"] as? [String: Any])?["data"] as? [String: Any])?["id"] as? String == order)
            #expect(Self.code(api, try api.call("GET", "/admin/webhook-events?type=lost", token: admin)) == "validation_failed")

            // Replay to the re-enabled 410 endpoint: every event since, each attempted.
            let enabled = try api.call("PATCH", "/admin/webhooks/\(goneID)", json: #"{"status":"enabled"}"#, token: admin)
            #expect(api.object(enabled)["status"] as? String == "enabled" && api.object(enabled)["failing_since"] is NSNull)
            try receiver.register("gone", secrets: [try #require(goneMade["secret"] as? String)], behaviour: .ok)
            let replay = try api.call("POST", "/admin/webhooks/\(goneID)/replay", json: #"{"since":"2000-01-01T00:00:00Z"}"#,
                                      token: admin)
            #expect(replay.status == 202)
            #expect(api.object(replay)["more"] as? Bool == false && (api.object(replay)["enqueued"] as? Int ?? 0) >= 2)
            _ = try receiver.waitForDeliveries(2) { $0.endpoint == "gone" && $0.answer == "204" }

            let metrics = try api.call("GET", "/metrics").text
            #expect(metrics.contains(#"axiom_webhook_attempts_total{outcome="succeeded"}"#))
            #expect(metrics.contains(#"axiom_webhook_attempts_total{outcome="gone"} "#))
            #expect(metrics.contains("axiom_webhook_attempt_duration_seconds_count"))

            // Deleted: gone from the list and the routes.
            #expect(try api.call("DELETE", "/admin/webhooks/\(goneID)", token: admin).status == 204)
            #expect(Self.code(api, try api.call("GET", "/admin/webhooks/\(goneID)", token: admin)) == "webhook_endpoint_not_found")
            let listed = api.object(try api.call("GET", "/admin/webhooks", token: admin))["items"] as? [[String: Any]]
            #expect(listed?.compactMap { $0["id"] as? String } == [id])
        }
    }

    /// An endpoint the service disables (here a 410) is told to the admins
    /// by mail, rendered from `admin/webhook_endpoint_disabled`.
    @Test func aDisabledEndpointIsMailedToTheAdmins() throws {
        let receiver = try WebhookReceiver()
        let sink = try SMTPSink(["--tls", "none"])
        try Shop.run(stock: 10, arguments: Self.arguments(receiver) + sink.serverArguments) { shop, api in
            let made = api.object(try api.call("POST", "/admin/webhooks",
                                               json: #"{"url":"\#(receiver.url("gone"))","description":"the old CRM"}"#,
                                               token: shop.admin))
            let id = try #require(made["id"] as? String)
            try receiver.register("gone", secrets: [try #require(made["secret"] as? String)], behaviour: .gone)
            _ = try shop.customer("someone")
            let notice = try #require(try sink.mails(1).first { $0.subject.contains("Webhook endpoint disabled") })
            #expect(notice.to == ["root@example.com"], "admin_email, mail_admin_to being unset")
            #expect(notice.subject == "Webhook endpoint disabled: \(receiver.url("gone"))")
            #expect(notice.text.contains(id) && notice.text.contains("410 Gone") && notice.text.contains("the old CRM"))
            #expect(notice.html.contains("<strong>410 Gone</strong>"))
            #expect(api.object(try api.call("GET", "/admin/webhooks/\(id)", token: shop.admin))["disabled_reason"] as? String
                    == "gone")
        }
    }

    /// With `webhooks_allow_private` off (the default), what points at the
    /// service's own network is refused when it is given.
    @Test func privateAndLoopbackTargetsAreRefusedWithTheAddressNamed() throws {
        try ServerProcess.run(arguments: ["--port", "0"], environment: AccountFlowTests.adminEnvironment) { server, api in
            let admin = try api.adminToken()
            for (url, address) in [("https://127.0.0.1/hooks", "127.0.0.1"), ("https://10.0.0.1/hooks", "10.0.0.1"),
                                   ("https://169.254.169.254/latest/meta-data", "169.254.169.254"),
                                   ("https://[::1]:8443/hooks", "::1"), ("https://[fd00::1]/hooks", "fd00::1"),
                                   ("https://localhost/hooks", "127.0.0.1")] {
                let refused = try api.call("POST", "/admin/webhooks", json: #"{"url":"\#(url)"}"#, token: admin)
                #expect(refused.status == 422 && Self.code(api, refused) == "webhook_url_refused", "\(url)")
                #expect((api.object(refused)["detail"] as? String)?.contains(address) == true, "\(url): \(refused.text)")
            }
            #expect(Self.code(api, try api.call("POST", "/admin/webhooks", json: #"{"url":"http://example.com/hooks"}"#,
                                                token: admin)) == "webhook_url_invalid")
            #expect((api.object(try api.call("GET", "/admin/webhooks", token: admin))["items"] as? [Any])?.isEmpty == true)
        }
    }
}
