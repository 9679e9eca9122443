import Domain
import Formats

/// A product document `{id, sku, name, description, price, stock, active}`
/// (and, for admins, `low_stock_threshold`), and a page of them
/// `{items, next_cursor}`, written directly into bytes: a product page made
/// for a working-set miss and every search page are encoded per response,
/// where JSONEncoder's generic containers would be most of the cost.
/// `ProductJSONTests` check that both decode to exactly what JSONEncoder
/// makes of the same value (for customers, less the threshold).
enum ProductJSON {
    /// Who reads the document: the stock alert threshold is the merchant's
    /// own business, so the public catalogue leaves it out.
    enum Audience {
        case customers, admins
    }

    static func bytes(_ product: Product, for audience: Audience = .customers) -> [UInt8] {
        var json = JSONBytes(capacity: 192 + product.name.utf8.count + product.description.utf8.count)
        write(product, for: audience, to: &json)
        return json.bytes
    }

    static func page(_ page: ProductPage, for audience: Audience = .customers) -> [UInt8] {
        var json = JSONBytes(capacity: 64 + page.items.count * 352)
        json.page(page.items, nextCursor: page.nextCursor) { write($0, for: audience, to: &$1) }
        return json.bytes
    }

    private static func write(_ product: Product, for audience: Audience, to json: inout JSONBytes) {
        json.raw("{\"id\":")
        json.rawString(product.id.description)
        json.raw(",\"sku\":")
        // SKUs are `A–Z 0–9 - _` (Product.validate), but a row written by
        // other means must still come out as valid JSON: escape if needed.
        json.string(product.sku)
        json.raw(",\"name\":")
        json.string(product.name)
        json.raw(",\"description\":")
        json.string(product.description)
        json.raw(",\"price\":{\"amount\":")
        json.integer(product.price.amount)
        json.raw(",\"currency\":")
        // ISO 4217: three capital letters (Currency refuses anything else).
        json.rawString(product.price.currency.code)
        json.raw("},\"stock\":")
        json.integer(product.stock)
        json.raw(product.active ? ",\"active\":true" : ",\"active\":false")
        if audience == .admins {
            json.raw(",\"low_stock_threshold\":")
            if let threshold = product.lowStockThreshold { json.integer(threshold) } else { json.raw("null") }
        }
        json.raw("}")
    }
}
