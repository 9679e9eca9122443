/// A payment's JSON: `{id, order_id, user_id, status, amount, method,
/// expires_at, reference, financial_status, paid, refunded, refund_owed,
/// amount_due}` (`reference` null unless recorded by an admin; the last
/// five derived from the ledger's sums).
extension Payment: Codable {
    enum CodingKeys: String, CodingKey {
        case id
        case orderID = "order_id"
        case userID = "user_id"
        case status
        case amount
        case method
        case expiresAt = "expires_at"
        case reference
        case financialStatus = "financial_status"
        case paid
        case refunded
        case refundOwed = "refund_owed"
        case amountDue = "amount_due"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let amount = try container.decode(Money.self, forKey: .amount)
        self.init(id: try container.decode(PaymentID.self, forKey: .id),
                  orderID: try container.decode(OrderID.self, forKey: .orderID),
                  userID: try container.decode(UserID.self, forKey: .userID),
                  status: try container.decode(PaymentStatus.self, forKey: .status),
                  amount: amount,
                  method: try container.decode(PaymentMethod.self, forKey: .method),
                  expiresAt: try container.decode(Timestamp.self, forKey: .expiresAt),
                  reference: try container.decodeIfPresent(String.self, forKey: .reference),
                  paid: try container.decodeIfPresent(Money.self, forKey: .paid)?.amount ?? 0,
                  refunded: try container.decodeIfPresent(Money.self, forKey: .refunded)?.amount ?? 0)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(orderID, forKey: .orderID)
        try container.encode(userID, forKey: .userID)
        try container.encode(status, forKey: .status)
        try container.encode(amount, forKey: .amount)
        try container.encode(method, forKey: .method)
        try container.encode(expiresAt, forKey: .expiresAt)
        // Written as null when absent: every payment has the same members.
        try container.encode(reference, forKey: .reference)
        try container.encode(financialStatus, forKey: .financialStatus)
        let currency = amount.currency
        try container.encode(Money(amount: paid, currency: currency), forKey: .paid)
        try container.encode(Money(amount: refunded, currency: currency), forKey: .refunded)
        try container.encode(Money(amount: refundOwed, currency: currency), forKey: .refundOwed)
        try container.encode(Money(amount: amountDue, currency: currency), forKey: .amountDue)
    }
}
