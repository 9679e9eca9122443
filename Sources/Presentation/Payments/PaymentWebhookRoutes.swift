import Contexts
import Domain
import HTTPServer

/// `POST /payments/webhook`: the payment provider's signed notifications,
/// bound to the process-wide `PaymentNotificationContext`. The signature
/// covers the raw body bytes as received (`Axiom-Signature: t=…,v1=…`), so
/// the body is checked before it is parsed, never re-encoded.
public struct PaymentWebhookRoutes: RouteGroup {
    public typealias Bound = PaymentNotificationContext
    let notifications: SharedBinding<PaymentNotificationContext>

    public init(_ notifications: PaymentNotificationContext) {
        self.notifications = SharedBinding(notifications)
    }

    public func register(on router: inout Router) {
        router.post("/payments/webhook", notifications.handler { request, notifications in
            let (notice, receipt) = try await notifications.receive(signature: request.headers["axiom-signature"],
                                                                    body: request.body) { _ in
                try PaymentEventBody.notice(from: request)
            }
            return try JSONBody.response(WebhookReply(eventID: notice.id, receipt: receipt))
        })
    }
}
