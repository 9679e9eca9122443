/// A payment's JSON: `{id, order_id, user_id, status, amount, method,
/// expires_at, reference}` (`reference` null unless recorded by an admin).
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
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try container.decode(PaymentID.self, forKey: .id),
                  orderID: try container.decode(OrderID.self, forKey: .orderID),
                  userID: try container.decode(UserID.self, forKey: .userID),
                  status: try container.decode(PaymentStatus.self, forKey: .status),
                  amount: try container.decode(Money.self, forKey: .amount),
                  method: try container.decode(PaymentMethod.self, forKey: .method),
                  expiresAt: try container.decode(Timestamp.self, forKey: .expiresAt),
                  reference: try container.decodeIfPresent(String.self, forKey: .reference))
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
    }
}
