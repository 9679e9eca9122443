/// The resource an event is about: the event's `data` is that resource as
/// the API shows it when the event goes out, read then by id.
public enum WebhookSubject: Sendable, Hashable {
    case order(OrderID)
    case product(ProductID)
    case customer(UserID)
}

extension WebhookSubject: Codable {
    enum CodingKeys: String, CodingKey {
        case order = "order_id"
        case product = "product_id"
        case customer = "user_id"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let id = try container.decodeIfPresent(OrderID.self, forKey: .order) {
            self = .order(id)
        } else if let id = try container.decodeIfPresent(ProductID.self, forKey: .product) {
            self = .product(id)
        } else {
            self = .customer(try container.decode(UserID.self, forKey: .customer))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .order(let id): try container.encode(id, forKey: .order)
        case .product(let id): try container.encode(id, forKey: .product)
        case .customer(let id): try container.encode(id, forKey: .customer)
        }
    }
}
