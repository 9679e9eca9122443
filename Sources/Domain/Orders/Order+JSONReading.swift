import Formats

extension Order {
    /// The order in `bytes` if this reader understands all of it, else nil
    /// (never an order `JSONDecoder` would not return). It reads `json` and
    /// every document stored before by a `JSONEncoder` (members in any
    /// order, sorted or not, pretty-printed, escapes of every kind), the
    /// values through the parsers the `Decodable` inits use (`OrderID(_:)`,
    /// `Timestamp(rfc3339:)`, `Currency`'s check, `OrderStatus(rawValue:)`).
    /// It answers nil for what it does not take although `JSONDecoder`
    /// reads it (an unknown or repeated member, a whole number with a
    /// fraction or exponent, a trailing comma, a byte order mark), so a
    /// caller holding such documents keeps `JSONDecoder` for them.
    public init?(json bytes: UnsafeBufferPointer<UInt8>) {
        var reader = JSONReader(bytes)
        reader.skipWhitespace()
        guard let order = reader.order() else { return nil }
        reader.skipWhitespace()
        guard reader.isAtEnd else { return nil }
        self = order
    }
}

private extension JSONReader {
    /// `object`, each member read by `member` with its name as a String
    /// (names of this document are short: no allocation).
    mutating func members(_ member: (inout JSONReader, String) -> Bool) -> Bool {
        object { reader, name in member(&reader, String(decoding: name, as: UTF8.self)) }
    }

    /// A member that `decodeIfPresent` reads: absent and null both mean none.
    mutating func optional<Value>(_ value: inout Value?, seen: inout Bool, _ read: (inout JSONReader) -> Value?) -> Bool {
        guard !seen else { return false }
        seen = true
        if literal("null") { return true }
        value = read(&self)
        return value != nil
    }

    mutating func order() -> Order? {
        var id: OrderID?, userID: UserID?, status: OrderStatus?, lines: [OrderLine]?
        var total: Money?, createdAt: Timestamp?, checkoutID: CheckoutID?, checkoutSeen = false
        var address: ShippingAddress?, addressSeen = false
        let read = members { reader, key in
            switch key {
            case "id":
                guard id == nil, let text = reader.string(), let value = OrderID(text) else { return false }
                id = value
            case "user_id":
                guard userID == nil, let text = reader.string(), let value = UserID(text) else { return false }
                userID = value
            case "status":
                guard status == nil, let text = reader.string(), let value = OrderStatus(rawValue: text) else { return false }
                status = value
            case "items":
                guard lines == nil, let value = reader.lines() else { return false }
                lines = value
            case "total":
                guard total == nil, let value = reader.money() else { return false }
                total = value
            case "created_at":
                guard createdAt == nil, let text = reader.string(), let value = Timestamp(rfc3339: text) else { return false }
                createdAt = value
            case "checkout_id":
                return reader.optional(&checkoutID, seen: &checkoutSeen) { reader in reader.string().flatMap { CheckoutID($0) } }
            case "shipping_address":
                return reader.optional(&address, seen: &addressSeen) { $0.address() }
            default:
                return false
            }
            return true
        }
        guard read, let id, let userID, let status, let lines, let total, let createdAt else { return nil }
        return Order(id: id, userID: userID, status: status, lines: lines, total: total, createdAt: createdAt,
                     checkoutID: checkoutID, shippingAddress: address)
    }

    mutating func address() -> ShippingAddress? {
        var name: String?, lines: [String]?, city: String?, postalCode: String?, country: String?
        var phone: String?, email: String?, phoneSeen = false, emailSeen = false
        let read = members { reader, key in
            switch key {
            case "name":
                guard name == nil, let value = reader.string() else { return false }
                name = value
            case "lines":
                guard lines == nil, let value = reader.strings() else { return false }
                lines = value
            case "city":
                guard city == nil, let value = reader.string() else { return false }
                city = value
            case "postal_code":
                guard postalCode == nil, let value = reader.string() else { return false }
                postalCode = value
            case "country":
                guard country == nil, let value = reader.string() else { return false }
                country = value
            case "phone":
                return reader.optional(&phone, seen: &phoneSeen) { $0.string() }
            case "email":
                return reader.optional(&email, seen: &emailSeen) { $0.string() }
            default:
                return false
            }
            return true
        }
        guard read, let name, let lines, let city, let postalCode, let country else { return nil }
        return ShippingAddress(name: name, lines: lines, city: city, postalCode: postalCode, country: country,
                               phone: phone, email: email)
    }

    mutating func strings() -> [String]? {
        var strings: [String] = []
        let read = array { reader in
            guard let string = reader.string() else { return false }
            strings.append(string)
            return true
        }
        return read ? strings : nil
    }

    mutating func lines() -> [OrderLine]? {
        var lines: [OrderLine] = []
        let read = array { reader in
            guard let line = reader.line() else { return false }
            lines.append(line)
            return true
        }
        return read ? lines : nil
    }

    mutating func line() -> OrderLine? {
        var productID: ProductID?, name: String?, quantity: Int?, unitPrice: Money?, lineTotal: Money?
        let read = members { reader, key in
            switch key {
            case "product_id":
                guard productID == nil, let text = reader.string(), let value = ProductID(text) else { return false }
                productID = value
            case "name":
                guard name == nil, let value = reader.string() else { return false }
                name = value
            case "quantity":
                guard quantity == nil, case .integer(let number) = reader.number(), let value = Int(exactly: number) else {
                    return false
                }
                quantity = value
            case "unit_price":
                guard unitPrice == nil, let value = reader.money() else { return false }
                unitPrice = value
            case "line_total":
                guard lineTotal == nil, let value = reader.money() else { return false }
                lineTotal = value
            default:
                return false
            }
            return true
        }
        guard read, let productID, let name, let quantity, let unitPrice, let lineTotal else { return nil }
        return OrderLine(productID: productID, name: name, quantity: quantity, unitPrice: unitPrice, lineTotal: lineTotal)
    }

    mutating func money() -> Money? {
        var amount: Int64?, currency: Currency?
        let read = members { reader, key in
            switch key {
            case "amount":
                guard amount == nil, case .integer(let value) = reader.number() else { return false }
                amount = value
            case "currency":
                guard currency == nil, let text = reader.string(), let value = try? Currency(text) else { return false }
                currency = value
            default:
                return false
            }
            return true
        }
        guard read, let amount, let currency else { return nil }
        return Money(amount: amount, currency: currency)
    }
}
