/// One line of an order with the product's name and price frozen at
/// checkout (later catalogue changes do not touch placed orders). Encodes as
/// `{product_id, name, quantity, unit_price, line_total}`.
public struct OrderLine: Hashable, Sendable, Codable, Validatable {
    public let productID: ProductID
    public let name: String
    public let quantity: Int
    public let unitPrice: Money
    public let lineTotal: Money

    /// `lineTotal` is `unitPrice × quantity`; `overflow` if it cannot be.
    public init(productID: ProductID, name: String, quantity: Int, unitPrice: Money) throws {
        self.init(productID: productID, name: name, quantity: quantity, unitPrice: unitPrice,
                  lineTotal: try unitPrice.multiplied(by: quantity))
    }

    /// Memberwise, as stored; `validate()` checks the total.
    public init(productID: ProductID, name: String, quantity: Int, unitPrice: Money, lineTotal: Money) {
        self.productID = productID
        self.name = name
        self.quantity = quantity
        self.unitPrice = unitPrice
        self.lineTotal = lineTotal
    }

    /// Freezes a priced cart line.
    public init(_ priced: PricedLine) {
        self.init(productID: priced.productID, name: priced.name, quantity: priced.quantity,
                  unitPrice: priced.unitPrice, lineTotal: priced.lineTotal)
    }

    enum CodingKeys: String, CodingKey {
        case productID = "product_id"
        case name, quantity
        case unitPrice = "unit_price"
        case lineTotal = "line_total"
    }

    /// Name as a product's; quantity 1…99; unit price not negative;
    /// line total exactly unit price × quantity, in the same currency.
    public func validate() -> ValidationError? {
        var errors = ValidationError()
        TextRules.checkLine(name, field: "name", max: Product.maxNameLength, into: &errors)
        errors.add(CartLine.checkQuantity(quantity))
        if unitPrice.isNegative {
            errors.add("unit_price.amount", .outOfRange, "unit_price must not be negative")
        }
        if (try? unitPrice.multiplied(by: quantity)) != lineTotal {
            errors.add("line_total", .inconsistent, "line_total must be unit_price × quantity")
        }
        return errors.orNil
    }
}
