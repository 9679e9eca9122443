import Domain

/// The webhook's answer: `{"event_id", "outcome", "payment"}`; `outcome`
/// is `applied`, `unchanged` (a decline: the payment stays payable),
/// `duplicate` (this event id, or this movement's provider reference, was
/// recorded before), `anomaly` (a refund or chargeback the ledger cannot
/// take, kept for an admin: `GET /payments/anomalies`) or `ignored` (a type
/// this server does not handle; `payment` null).
struct WebhookReply: Encodable {
    let eventID: String
    let outcome: String
    let payment: Payment?

    enum CodingKeys: String, CodingKey {
        case eventID = "event_id"
        case outcome
        case payment
    }

    init(eventID: String, receipt: PaymentReceipt?) {
        self.eventID = eventID
        outcome = receipt?.effect.rawValue ?? "ignored"
        payment = receipt?.payment
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(eventID, forKey: .eventID)
        try container.encode(outcome, forKey: .outcome)
        try container.encode(payment, forKey: .payment)
    }
}
