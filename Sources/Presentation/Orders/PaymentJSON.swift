import Domain
import Formats

/// A payment document `{id, order_id, user_id, status, amount, method,
/// expires_at, reference, financial_status, paid, refunded, refund_owed,
/// amount_due}` written directly into bytes, as
/// `Payment.encode(to:)` writes it (`reference` null when absent), inside
/// an order (`OrderJSON`). The webhook's reply (`WebhookReply`), one per
/// provider event rather than per checkout, still goes through `Codable`.
enum PaymentJSON {
    static func write(_ payment: Payment, to json: inout JSONBytes) {
        json.raw("{\"id\":")
        json.rawString(payment.id.description)
        json.raw(",\"order_id\":")
        json.rawString(payment.orderID.description)
        json.raw(",\"user_id\":")
        json.rawString(payment.userID.description)
        json.raw(",\"status\":")
        json.rawString(payment.status.rawValue)
        json.raw(",\"amount\":")
        json.money(payment.amount)
        json.raw(",\"method\":")
        json.rawString(payment.method.rawValue)
        json.raw(",\"expires_at\":")
        json.timestamp(payment.expiresAt)
        json.raw(",\"reference\":")
        // An admin's free text (a transfer's reference): escaped if need be.
        if let reference = payment.reference { json.string(reference) } else { json.raw("null") }
        json.raw(",\"financial_status\":")
        json.rawString(payment.financialStatus.rawValue)
        let currency = payment.amount.currency
        json.raw(",\"paid\":")
        json.money(Money(amount: payment.paid, currency: currency))
        json.raw(",\"refunded\":")
        json.money(Money(amount: payment.refunded, currency: currency))
        json.raw(",\"refund_owed\":")
        json.money(Money(amount: payment.refundOwed, currency: currency))
        json.raw(",\"amount_due\":")
        json.money(Money(amount: payment.amountDue, currency: currency))
        json.raw("}")
    }

    /// About 290 bytes besides the reference and the five derived members,
    /// about 200 more.
    static func capacity(_ payment: Payment?) -> Int {
        guard let payment else { return 16 }
        return 512 + (payment.reference?.utf8.count ?? 0)
    }
}
