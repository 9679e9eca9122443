import Domain
import HTTPServer

/// The webhooks' list queries: `GET /admin/webhooks/{id}/deliveries?
/// status=…&limit=…&cursor=…` and `GET /admin/webhook-events?type=…&
/// since=…&limit=…&cursor=…`. Every bad parameter is listed; no other
/// parameter is taken.
enum AdminWebhookQuery {
    static func deliveries(_ request: HTTPRequest) throws -> (status: WebhookDeliveryStatus?, page: PageRequest) {
        try KnownQuery.require(request, only: ["status", "limit", "cursor"])
        let page = try PageRequest.from(request)
        var errors = ValidationError()
        var status: WebhookDeliveryStatus?
        if let text = request.query["status"] {
            status = WebhookDeliveryStatus(rawValue: text)
            if status == nil {
                errors.add("status", .invalidFormat,
                           "status must be one of \(WebhookDeliveryStatus.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }
        try errors.throwIfAny()
        return (status, page)
    }

    static func events(_ request: HTTPRequest) throws -> (type: WebhookEventType?, since: Timestamp?, page: PageRequest) {
        try KnownQuery.require(request, only: ["type", "since", "limit", "cursor"])
        let page = try PageRequest.from(request)
        var errors = ValidationError()
        var type: WebhookEventType?
        if let text = request.query["type"] {
            type = WebhookEventType(rawValue: text)
            if type == nil {
                errors.add("type", .invalidFormat,
                           "type must be one of \(WebhookEventType.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }
        var since: Timestamp?
        if let text = request.query["since"] {
            since = Timestamp(rfc3339: text)
            if since == nil { errors.add("since", .invalidFormat, "since must be an RFC 3339 date-time") }
        }
        try errors.throwIfAny()
        return (type, since, page)
    }
}
