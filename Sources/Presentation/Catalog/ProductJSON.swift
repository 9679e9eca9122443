import Domain

/// A product document `{id, sku, name, description, price, stock, active}`
/// written directly into bytes. Over 1,000,000 products 99% of random
/// `GET /products/{id}` miss the representation cache, and JSONEncoder
/// then ran for every response (perf: a visible share of the miss path's
/// ~60 µs CPU per request). `ProductJSONTests` check that it decodes to
/// exactly what JSONEncoder makes of the same product.
enum ProductJSON {
    static func bytes(_ product: Product) -> [UInt8] {
        var json = JSONBytes(capacity: 160 + product.name.utf8.count + product.description.utf8.count)
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
        json.raw(product.active ? ",\"active\":true}" : ",\"active\":false}")
        return json.bytes
    }
}
