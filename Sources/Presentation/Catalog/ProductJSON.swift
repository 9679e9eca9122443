import Domain
import Formats

/// A product document (`JSONBytes.productMembers`: `{id, sku, name,
/// description, price, stock, active}` and, for admins,
/// `low_stock_threshold`), and a page of them `{items, next_cursor}`,
/// written directly into bytes: a product page made for a working-set miss
/// and every search page are encoded per response. `ProductJSONTests`
/// check that both decode to exactly what JSONEncoder makes of the same
/// value (for customers, less the threshold).
enum ProductJSON {
    /// Who reads the document: the stock alert threshold is the merchant's
    /// own business, so the public catalogue leaves it out.
    enum Audience {
        case customers, admins
    }

    static func bytes(_ product: Product, for audience: Audience = .customers) -> [UInt8] {
        var json = JSONBytes(capacity: product.jsonCapacity)
        write(product, for: audience, to: &json)
        return json.bytes
    }

    static func page(_ page: ProductPage, for audience: Audience = .customers) -> [UInt8] {
        var json = JSONBytes(capacity: 64 + page.items.count * 352)
        json.page(page.items, nextCursor: page.nextCursor) { write($0, for: audience, to: &$1) }
        return json.bytes
    }

    private static func write(_ product: Product, for audience: Audience, to json: inout JSONBytes) {
        json.productMembers(product, threshold: audience == .admins)
        json.raw("}")
    }
}
