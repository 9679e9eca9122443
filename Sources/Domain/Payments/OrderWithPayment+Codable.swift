/// The order's own members (see `Order`) and `payment` beside them, so a
/// client that knew orders before payments reads them unchanged.
extension OrderWithPayment: Codable {
    enum CodingKeys: String, CodingKey {
        case payment
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(order: try Order(from: decoder), payment: try container.decodeIfPresent(Payment.self, forKey: .payment))
    }

    public func encode(to encoder: any Encoder) throws {
        try order.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(payment, forKey: .payment)
    }
}
