import Formats

/// A product document `{id, sku, name, description, price, stock, active}`
/// and, as admins read it, `low_stock_threshold`, written directly into
/// bytes as `Product.encode(to:)` writes it: the catalogue's pages (encoded
/// per response, where JSONEncoder's generic containers would be most of
/// the cost), the admins' documents and a product's webhook event.
extension JSONBytes {
    /// `{` and the product's members, without the closing brace;
    /// `threshold`: with the stock alert threshold (null when unset), which
    /// only the merchant sees.
    public mutating func productMembers(_ product: Product, threshold: Bool) {
        raw("{\"id\":")
        rawString(product.id.description)
        raw(",\"sku\":")
        // SKUs are `A–Z 0–9 - _` (Product.validate), but a row written by
        // other means must still come out as valid JSON: escape if needed.
        string(product.sku)
        raw(",\"name\":")
        string(product.name)
        raw(",\"description\":")
        string(product.description)
        raw(",\"price\":")
        money(product.price)
        raw(",\"stock\":")
        integer(product.stock)
        raw(product.active ? ",\"active\":true" : ",\"active\":false")
        if threshold {
            raw(",\"low_stock_threshold\":")
            if let level = product.lowStockThreshold { integer(level) } else { raw("null") }
        }
    }
}

extension Product {
    public var jsonCapacity: Int { 192 + name.utf8.count + description.utf8.count }
}
