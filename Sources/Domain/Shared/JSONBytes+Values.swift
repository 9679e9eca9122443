import Formats

/// The domain's small value types as their `Codable` conformances write
/// them, for the documents written straight into bytes (orders, carts,
/// payments).
extension JSONBytes {
    /// `{"amount":1999,"currency":"USD"}`, as `Money` encodes.
    public mutating func money(_ money: Money) {
        raw("{\"amount\":")
        integer(money.amount)
        raw(",\"currency\":")
        // ISO 4217: three capital letters (Currency refuses anything else).
        rawString(money.currency.code)
        raw("}")
    }

    /// `{"product_id","name","quantity","unit_price","line_total"}`: a
    /// priced line, as a cart's and an order's lines both encode; a cart's
    /// line adds `"available_quantity"`.
    public mutating func pricedLine(_ productID: ProductID, name: String, quantity: Int, unitPrice: Money,
                                    lineTotal: Money, availableQuantity: Int? = nil) {
        raw("{\"product_id\":")
        rawString(productID.description)
        raw(",\"name\":")
        string(name)
        raw(",\"quantity\":")
        integer(quantity)
        raw(",\"unit_price\":")
        money(unitPrice)
        raw(",\"line_total\":")
        money(lineTotal)
        if let availableQuantity {
            raw(",\"available_quantity\":")
            integer(availableQuantity)
        }
        raw("}")
    }

    /// `"2026-11-22T08:30:00.000Z"`, as `Timestamp` encodes: RFC 3339 text
    /// is digits and `-:.TZ`, nothing to escape.
    public mutating func timestamp(_ timestamp: Timestamp) {
        rawString(timestamp.rfc3339)
    }
}
