import Formats

/// A payment document `{id, order_id, user_id, status, amount, method,
/// expires_at, reference, financial_status, paid, refunded, refund_owed,
/// amount_due}` written directly into bytes, as `Payment.encode(to:)`
/// writes it (`reference` null when absent): inside an order as the API
/// serves it and as a webhook event carries it (`OrderWithPayment.json`).
extension JSONBytes {
    public mutating func payment(_ payment: Payment) {
        raw("{\"id\":")
        rawString(payment.id.description)
        raw(",\"order_id\":")
        rawString(payment.orderID.description)
        raw(",\"user_id\":")
        rawString(payment.userID.description)
        raw(",\"status\":")
        rawString(payment.status.rawValue)
        raw(",\"amount\":")
        money(payment.amount)
        raw(",\"method\":")
        rawString(payment.method.rawValue)
        raw(",\"expires_at\":")
        timestamp(payment.expiresAt)
        raw(",\"reference\":")
        // An admin's free text (a transfer's reference): escaped if need be.
        if let reference = payment.reference { string(reference) } else { raw("null") }
        raw(",\"financial_status\":")
        rawString(payment.financialStatus.rawValue)
        let currency = payment.amount.currency
        raw(",\"paid\":")
        money(Money(amount: payment.paid, currency: currency))
        raw(",\"refunded\":")
        money(Money(amount: payment.refunded, currency: currency))
        raw(",\"refund_owed\":")
        money(Money(amount: payment.refundOwed, currency: currency))
        raw(",\"amount_due\":")
        money(Money(amount: payment.amountDue, currency: currency))
        raw("}")
    }
}

extension Payment {
    /// About 290 bytes besides the reference and the five derived members,
    /// about 200 more.
    public var jsonCapacity: Int { 512 + (reference?.utf8.count ?? 0) }
}
