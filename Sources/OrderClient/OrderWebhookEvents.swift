import Domain

/// The webhook events an order's own changes cause, enqueued in the
/// transaction of the change when webhooks are on
/// (`OrderClient(webhooks:)`): the changes its mails announce (placed,
/// shipped, cancelled; `OrderClient.announced(moving:)` decides for both).
/// A checkout that takes its order back (stock sold meanwhile) commits
/// `order.created` and `order.cancelled`; the event's work sees the order
/// settle and decides then. What money does to an order is the payments
/// client's to tell.
enum OrderWebhookEvents {
    static func request(_ change: OrderMail.Event, orderID: OrderID, at now: Int64) throws -> JobRequest {
        let type: WebhookEventType = switch change {
        case .placed: .orderCreated
        case .shipped: .orderShipped
        case .cancelled: .orderCancelled
        }
        return try WebhookEvent(type: type, subject: .order(orderID), at: now).request()
    }
}
