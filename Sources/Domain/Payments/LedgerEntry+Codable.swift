/// A ledger entry's JSON: `{id, payment_id, order_id, kind, amount, method,
/// reference, event_id, actor, actor_id, recorded_at, exceeds_paid}`
/// (`reference`, `event_id` and `actor_id` null when absent).
extension LedgerEntry: Encodable {
    enum CodingKeys: String, CodingKey {
        case id
        case paymentID = "payment_id"
        case orderID = "order_id"
        case kind
        case amount
        case method
        case reference
        case eventID = "event_id"
        case actor
        case actorID = "actor_id"
        case recordedAt = "recorded_at"
        case exceedsPaid = "exceeds_paid"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(paymentID, forKey: .paymentID)
        try container.encode(orderID, forKey: .orderID)
        try container.encode(movement.kind, forKey: .kind)
        try container.encode(movement.amount, forKey: .amount)
        try container.encode(movement.method, forKey: .method)
        try container.encode(movement.reference, forKey: .reference)
        try container.encode(movement.eventID, forKey: .eventID)
        try container.encode(movement.actor.kind, forKey: .actor)
        try container.encode(movement.actor.userID, forKey: .actorID)
        try container.encode(recordedAt, forKey: .recordedAt)
        try container.encode(exceedsPaid, forKey: .exceedsPaid)
    }
}
