import Contexts
import Domain
import HTTPServer

extension AdminRoutes {
    /// `POST /admin/webhooks/{id}/rotate-secret {overlap_seconds}`: may be empty (a day's overlap).
    struct RotationBody: Decodable {
        let overlapSeconds: Int64?

        enum CodingKeys: String, CodingKey {
            case overlapSeconds = "overlap_seconds"
        }
    }

    /// `POST /admin/webhooks/{id}/replay {since, cursor?}`.
    struct ReplayBody: Decodable {
        let since: Timestamp
        let cursor: String?
    }

    /// The webhooks for admins (docs/webhooks.md): endpoints (`POST`, `GET`
    /// `/admin/webhooks`, `GET`, `PATCH`, `DELETE /admin/webhooks/{id}`,
    /// `POST /admin/webhooks/{id}/rotate-secret`), an endpoint's deliveries
    /// (`GET /admin/webhooks/{id}/deliveries`) and a replay of its events
    /// since a time (`POST /admin/webhooks/{id}/replay`), one delivery with
    /// its attempts and its retry (`GET /admin/webhook-deliveries/{id}`,
    /// `POST /admin/webhook-deliveries/{id}/retry`), and the events
    /// (`GET /admin/webhook-events`).
    func registerWebhooks(on router: inout Router) {
        router.post("/admin/webhooks", policy: .accountData, admin.handler { request in
            let draft = try JSONBody.decode(WebhookEndpointDraft.self, from: request.http)
            let created = try await request.context.createWebhook(draft)
            return .json(.created, WebhookJSON.created(created),
                         headers: ["Location": "/admin/webhooks/\(created.endpoint.id)"])
        })
        router.get("/admin/webhooks", policy: .accountData, admin.handler { request in
            try KnownQuery.require(request.http, only: ["limit", "cursor"])
            let page = try PageRequest.from(request.http)
            return .json(.ok, WebhookJSON.endpoints(try await request.context.webhooks(limit: page.limit,
                                                                                       after: page.cursor)))
        })
        router.get("/admin/webhooks/{id}", policy: .accountData, admin.handler { request in
            try KnownQuery.require(request.http, only: [])
            return .json(.ok, WebhookJSON.endpoint(try await request.context.webhook(Self.webhookID(request.http))))
        })
        router.patch("/admin/webhooks/{id}", policy: .accountData, admin.handler { request in
            let patch = try JSONBody.decode(WebhookEndpointPatch.self, from: request.http)
            return .json(.ok, WebhookJSON.endpoint(try await request.context.updateWebhook(Self.webhookID(request.http),
                                                                                          patch)))
        })
        router.delete("/admin/webhooks/{id}", policy: .accountData, admin.handler { request in
            try KnownQuery.require(request.http, only: [])
            try await request.context.deleteWebhook(Self.webhookID(request.http))
            return HTTPResponse(status: .noContent)
        })
        router.post("/admin/webhooks/{id}/rotate-secret", policy: .accountData, admin.handler { request in
            // No body is a day's overlap, as `{}` is.
            let body = request.http.body.isEmpty ? RotationBody(overlapSeconds: nil)
                : try JSONBody.decode(RotationBody.self, from: request.http)
            return .json(.ok, WebhookJSON.secret(try await request.context.rotateWebhookSecret(
                Self.webhookID(request.http), overlapSeconds: body.overlapSeconds)))
        })
        router.get("/admin/webhooks/{id}/deliveries", policy: .accountData, admin.handler { request in
            let (status, page) = try AdminWebhookQuery.deliveries(request.http)
            return .json(.ok, WebhookJSON.deliveries(try await request.context.webhookDeliveries(
                of: Self.webhookID(request.http), status: status, limit: page.limit, after: page.cursor)))
        })
        router.post("/admin/webhooks/{id}/replay", policy: .accountData, admin.handler { request in
            let body = try JSONBody.decode(ReplayBody.self, from: request.http)
            return .json(.accepted, WebhookJSON.replay(try await request.context.replayWebhook(
                Self.webhookID(request.http), since: body.since, after: body.cursor)))
        })
        router.get("/admin/webhook-deliveries/{id}", policy: .accountData, admin.handler { request in
            try KnownQuery.require(request.http, only: [])
            return .json(.ok, WebhookJSON.deliveryLog(try await request.context.webhookDelivery(
                Self.deliveryID(request.http))))
        })
        router.post("/admin/webhook-deliveries/{id}/retry", policy: .accountData, admin.handler { request in
            .json(.accepted, WebhookJSON.delivery(try await request.context.retryWebhookDelivery(
                Self.deliveryID(request.http))))
        })
        router.get("/admin/webhook-events", policy: .accountData, admin.handler { request in
            let (type, since, page) = try AdminWebhookQuery.events(request.http)
            return .json(.ok, WebhookJSON.events(try await request.context.webhookEvents(
                type: type, since: since, limit: page.limit, after: page.cursor)))
        })
    }

    /// The `{id}` of an endpoint's route, as given (one that names none is
    /// `webhook_endpoint_not_found`).
    static func webhookID(_ request: HTTPRequest) -> String {
        request.parameters["id"] ?? ""
    }

    /// The `{id}` of a delivery's route; text that is no delivery id is
    /// `webhook_delivery_not_found`.
    static func deliveryID(_ request: HTTPRequest) throws -> Int64 {
        let text = request.parameters["id"] ?? ""
        guard let id = Int64(text), id > 0 else { throw WebhookError.deliveryNotFound(id: String(text.prefix(64))) }
        return id
    }
}
