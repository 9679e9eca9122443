import Domain
import Formats

/// A product document (`JSONBytes.productMembers`) and a page of them
/// `{items, next_cursor}`, written directly into bytes: a product page made
/// for a working-set miss and every search page are encoded per response.
/// `ProductJSONTests` check that both decode to exactly what JSONEncoder
/// makes of the same value.
enum ProductJSON {
    static func bytes(_ product: Product) -> [UInt8] {
        var json = JSONBytes(capacity: product.jsonCapacity)
        write(product, to: &json)
        return json.bytes
    }

    static func page(_ page: ProductPage) -> [UInt8] {
        var json = JSONBytes(capacity: 64 + page.items.count * 320)
        json.page(page.items, nextCursor: page.nextCursor) { write($0, to: &$1) }
        return json.bytes
    }

    private static func write(_ product: Product, to json: inout JSONBytes) {
        json.productMembers(product)
        json.raw("}")
    }
}
