import Domain
import Formats

/// The cart document `{items, total, unavailable_items}` written directly
/// into bytes. Every cart route answers it, on every request, so neither
/// JSONEncoder (generic containers, a dictionary per object, runtime
/// metadata look-ups) nor an intermediate String is affordable here.
/// `CartJSONTests` check that it decodes to exactly
/// what JSONEncoder makes of the same quote.
enum CartJSON {
    static func bytes(_ quote: CartQuote) -> [UInt8] {
        var json = JSONBytes(capacity: 80 + (quote.lines.count + quote.unavailable.count) * 180)
        json.raw("{\"items\":[")
        for (index, line) in quote.lines.enumerated() {
            if index > 0 { json.raw(",") }
            json.pricedLine(line.productID, name: line.name, quantity: line.quantity, unitPrice: line.unitPrice,
                            lineTotal: line.lineTotal, availableQuantity: line.availableQuantity)
        }
        json.raw("],\"total\":")
        json.money(quote.total)
        json.raw(",\"unavailable_items\":[")
        for (index, line) in quote.unavailable.enumerated() {
            json.raw(index == 0 ? "{\"product_id\":" : ",{\"product_id\":")
            json.rawString(line.productID.description)
            json.raw(",\"name\":")
            if let name = line.name { json.string(name) } else { json.raw("null") }
            json.raw(",\"quantity\":")
            json.integer(line.quantity)
            json.raw(",\"reason\":")
            json.rawString(line.reason.rawValue)
            json.raw("}")
        }
        json.raw("]}")
        return json.bytes
    }
}
