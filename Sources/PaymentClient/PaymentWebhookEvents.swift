import Domain

/// The webhook events a payment's changes cause
/// (`PaymentClient(webhooks:)`), about the payment's order: `order.paid`
/// when money makes it paid, `payment.failed` on a decline,
/// `order.refunded` with the amount given back, `order.refund_owed` when
/// a change leaves money owed back.
enum PaymentWebhookEvents {
    static func event(_ announcement: PaymentAnnouncement, of payment: Payment, at now: Int64) -> WebhookEvent? {
        let subject = WebhookSubject.order(payment.orderID)
        switch announcement {
        case .received(_, let paidOrder):
            return paidOrder ? WebhookEvent(type: .orderPaid, subject: subject, at: now) : nil
        case .declined: return WebhookEvent(type: .paymentFailed, subject: subject, at: now)
        case .refunded(let amount): return WebhookEvent(type: .orderRefunded, subject: subject, at: now, amount: amount)
        case .refundOwed: return WebhookEvent(type: .orderRefundOwed, subject: subject, at: now)
        // The customer's instructions; nothing happened to the order yet.
        case .awaited: return nil
        }
    }
}
