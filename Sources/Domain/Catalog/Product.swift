/// A product in the catalogue. Immutable; every change returns a new
/// `Product` and validates what it can break.
///
/// Invariants (`validate()`): `sku` 1–64 characters of `A–Z 0–9 - _`;
/// `name` 1–200 characters, no surrounding whitespace; `description` at most
/// 2000 characters; `price` 0…`maxPriceAmount` minor units; `stock`
/// 0…1 000 000; `lowStockThreshold` absent or 0…1 000 000.
/// Encodes as `{id, sku, name, description, price, stock, active,
/// low_stock_threshold}` (the threshold `null` when there is none): the
/// admins' document; the public catalogue leaves the threshold out.
public struct Product: Hashable, Sendable, Codable, Identifiable, Validatable {
    public static let maxSKULength = 64
    public static let maxNameLength = 200
    public static let maxDescriptionLength = 2000
    public static let stockRange = 0 ... 1_000_000
    /// The largest unit price, in minor units (10 000 000 000.00 in a
    /// two-decimal currency). Chosen so that no cart or order total can leave
    /// Int64: at most `Cart.maxLines` (100) lines of at most 99 units each,
    /// so a total is at most 100 × 99 × 10^12 ≈ 9.9 × 10^15, about a
    /// thousandth of Int64.max (9.2 × 10^18). Without a bound, one product
    /// priced near Int64.max would make `quantity × price` overflow and a
    /// cart unpriceable.
    public static let maxPriceAmount: Int64 = 1_000_000_000_000

    public let id: ProductID
    public let sku: String
    public let name: String
    public let description: String
    public let price: Money
    public let stock: Int
    public let active: Bool
    /// The stock level at or below which the merchant wants to hear of it
    /// (`product.stock_low`); nil: no alert.
    public let lowStockThreshold: Int?

    /// Memberwise; does not validate (see `validate()` / `validated()`).
    public init(id: ProductID, sku: String, name: String, description: String = "", price: Money,
                stock: Int = 0, active: Bool = true, lowStockThreshold: Int? = nil) {
        self.id = id
        self.sku = sku
        self.name = name
        self.description = description
        self.price = price
        self.stock = stock
        self.active = active
        self.lowStockThreshold = lowStockThreshold
    }

    enum CodingKeys: String, CodingKey {
        case id, sku, name, description, price, stock, active
        case lowStockThreshold = "low_stock_threshold"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(ProductID.self, forKey: .id)
        sku = try container.decode(String.self, forKey: .sku)
        name = try container.decode(String.self, forKey: .name)
        description = try container.decode(String.self, forKey: .description)
        price = try container.decode(Money.self, forKey: .price)
        stock = try container.decode(Int.self, forKey: .stock)
        active = try container.decode(Bool.self, forKey: .active)
        // The public document has none.
        lowStockThreshold = try container.decodeIfPresent(Int.self, forKey: .lowStockThreshold)
    }

    /// The threshold is written as `null` when there is none, so an admin
    /// sees the member either way.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(sku, forKey: .sku)
        try container.encode(name, forKey: .name)
        try container.encode(description, forKey: .description)
        try container.encode(price, forKey: .price)
        try container.encode(stock, forKey: .stock)
        try container.encode(active, forKey: .active)
        try container.encode(lowStockThreshold, forKey: .lowStockThreshold)
    }

    public func validate() -> ValidationError? {
        var errors = ValidationError()
        errors.add(Product.checkSKU(sku))
        TextRules.checkLine(name, field: "name", max: Product.maxNameLength, into: &errors)
        TextRules.checkText(description, field: "description", max: Product.maxDescriptionLength, into: &errors)
        errors.add(Product.checkPrice(price))
        errors.add(Product.checkStock(stock))
        errors.add(Product.checkLowStockThreshold(lowStockThreshold))
        return errors.orNil
    }

    /// Submitted text as stored: trimmed, in NFC (`TextRules.normalized`).
    static func normalizedName(_ name: String) -> String {
        TextRules.normalized(name, maxCharacters: maxNameLength)
    }

    static func normalizedDescription(_ description: String) -> String {
        TextRules.normalized(description, maxCharacters: maxDescriptionLength)
    }

    static func checkSKU(_ sku: String) -> FieldError? {
        let bytes = Array(sku.utf8)
        if bytes.isEmpty { return FieldError(field: "sku", code: .required, message: "sku is required") }
        if bytes.count > maxSKULength {
            return FieldError(field: "sku", code: .tooLong, message: "sku must be at most \(maxSKULength) characters")
        }
        let valid = bytes.allSatisfy { byte in
            (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
        return valid ? nil : FieldError(field: "sku", code: .invalidFormat,
                                        message: "sku may contain only A-Z, 0-9, '-' and '_'")
    }

    static func checkPrice(_ price: Money) -> FieldError? {
        (0...maxPriceAmount).contains(price.amount) ? nil : FieldError(
            field: "price.amount", code: .outOfRange,
            message: "price.amount must be between 0 and \(maxPriceAmount) (minor units)")
    }

    static func checkStock(_ stock: Int, field: String = "stock") -> FieldError? {
        stockRange.contains(stock) ? nil : FieldError(
            field: field, code: .outOfRange,
            message: "\(field) must be between \(stockRange.lowerBound) and \(stockRange.upperBound)")
    }

    static func checkLowStockThreshold(_ threshold: Int?) -> FieldError? {
        guard let threshold, !stockRange.contains(threshold) else { return nil }
        return FieldError(field: "low_stock_threshold", code: .outOfRange,
                          message: "low_stock_threshold must be null or between \(stockRange.lowerBound) and \(stockRange.upperBound)")
    }

    // MARK: - Questions

    /// Can be put in an order now: active and something in stock.
    public var isAvailable: Bool { active && stock > 0 }

    /// Whether a change from `previousStock` to this product's stock took
    /// it from above its threshold to at or below it: once per crossing, so
    /// sales below the threshold do not repeat the alert, and a restock
    /// above it arms the next one.
    public func fellToLowStock(from previousStock: Int) -> Bool {
        guard let threshold = lowStockThreshold else { return false }
        return previousStock > threshold && stock <= threshold
    }

    // MARK: - Changes

    /// `quantity` (≥ 1) more in stock, up to the maximum.
    public func restocked(by quantity: Int) throws -> Product {
        try Product.requirePositive(quantity)
        let (sum, overflow) = stock.addingReportingOverflow(quantity)
        guard !overflow, Product.stockRange.contains(sum) else {
            throw ValidationError([Product.checkStock(Product.stockRange.upperBound + 1)!])
        }
        return copy(stock: sum)
    }

    public func deactivated() -> Product { copy(active: false) }
    public func activated() -> Product { copy(active: true) }

    /// Takes `quantity` (≥ 1) out of stock for an order. Refuses an inactive
    /// product (`productInactive`) and more than is in stock
    /// (`insufficientStock`); stock never goes negative.
    public func reserving(_ quantity: Int) throws -> Product {
        try Product.requirePositive(quantity)
        guard active else { throw CatalogError.productInactive(id) }
        guard quantity <= stock else {
            throw CatalogError.insufficientStock(productID: id, requested: quantity, available: stock)
        }
        return copy(stock: stock - quantity)
    }

    /// Puts `quantity` (≥ 1) back (a cancelled order). Works on inactive
    /// products too; refuses to exceed the maximum stock.
    public func releasing(_ quantity: Int) throws -> Product {
        try restocked(by: quantity)
    }

    private static func requirePositive(_ quantity: Int) throws {
        if quantity < 1 {
            throw ValidationError([FieldError(
                field: "quantity", code: .outOfRange, message: "quantity must be at least 1")])
        }
    }

    /// `lowStockThreshold`: nil keeps it, `.some(nil)` clears it.
    func copy(name: String? = nil, description: String? = nil, price: Money? = nil, stock: Int? = nil,
              active: Bool? = nil, lowStockThreshold: Int?? = nil) -> Product {
        Product(id: id, sku: sku, name: name ?? self.name, description: description ?? self.description,
                price: price ?? self.price, stock: stock ?? self.stock, active: active ?? self.active,
                lowStockThreshold: lowStockThreshold ?? self.lowStockThreshold)
    }
}
