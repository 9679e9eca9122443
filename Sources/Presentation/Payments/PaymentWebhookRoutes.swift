import Contexts
import Domain
import HTTPServer

/// `POST /payments/webhook`: the payment provider's signed notifications,
/// bound to `PaymentNotificationContext`. The signature covers the raw body
/// bytes as received (`Axiom-Signature: t=…,v1=…`), so the body is checked
/// before it is parsed, never re-encoded.
public enum PaymentWebhookRoutes {
    public static let name = "PaymentWebhookRoutes"

    public static func register(on router: inout Router, notifications: PaymentNotificationContext) {
        router.post("/payments/webhook") { request in
            try await ErrorResponses.handling {
                let (notice, receipt) = try await notifications.receive(signature: request.headers["axiom-signature"],
                                                                        body: request.body) { _ in
                    try PaymentEventBody.notice(from: request)
                }
                return try JSONBody.response(WebhookReply(eventID: notice.id, receipt: receipt))
            }
        }
    }
}
