/// An anomaly's JSON: `{id, payment_id, order_id, kind, amount, reference,
/// event_id, reason, refundable, recorded_at, applied_at}` (`reference`
/// and `applied_at` null when absent).
extension PaymentAnomaly: Encodable {
    enum CodingKeys: String, CodingKey {
        case id
        case paymentID = "payment_id"
        case orderID = "order_id"
        case kind
        case amount
        case reference
        case eventID = "event_id"
        case reason
        case refundable
        case recordedAt = "recorded_at"
        case appliedAt = "applied_at"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(paymentID, forKey: .paymentID)
        try container.encode(orderID, forKey: .orderID)
        try container.encode(movement.kind, forKey: .kind)
        try container.encode(movement.amount, forKey: .amount)
        try container.encode(movement.reference, forKey: .reference)
        try container.encode(movement.eventID, forKey: .eventID)
        try container.encode(reason, forKey: .reason)
        try container.encode(refundable, forKey: .refundable)
        try container.encode(recordedAt, forKey: .recordedAt)
        try container.encode(appliedAt, forKey: .appliedAt)
    }
}
