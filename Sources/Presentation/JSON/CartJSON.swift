import Domain
import HTTPServer

/// The cart document `{items, total, unavailable_items}` written directly.
/// Every cart route answers it, on every request; under load JSONEncoder
/// (generic containers, a dictionary per object, runtime metadata look-ups)
/// took about a third of the server's CPU for it (perf on
/// `scripts/bench.sh cart_put`). This writes the same document in one pass;
/// `CartJSONTests` check that it decodes to exactly what JSONEncoder makes
/// of the same quote.
enum CartJSON {
    static func bytes(_ quote: CartQuote) -> [UInt8] {
        var json = ""
        json.reserveCapacity(64 + (quote.lines.count + quote.unavailable.count) * 200)
        json += "{\"items\":["
        for (index, line) in quote.lines.enumerated() {
            if index > 0 { json += "," }
            json += "{\"product_id\":\""
            json += line.productID.description
            json += "\",\"name\":"
            JSONString.append(line.name, to: &json)
            json += ",\"quantity\":"
            json += String(line.quantity)
            json += ",\"unit_price\":"
            append(line.unitPrice, to: &json)
            json += ",\"line_total\":"
            append(line.lineTotal, to: &json)
            json += "}"
        }
        json += "],\"total\":"
        append(quote.total, to: &json)
        json += ",\"unavailable_items\":["
        for (index, line) in quote.unavailable.enumerated() {
            if index > 0 { json += "," }
            json += "{\"product_id\":\""
            json += line.productID.description
            json += "\",\"name\":"
            if let name = line.name { JSONString.append(name, to: &json) } else { json += "null" }
            json += ",\"quantity\":"
            json += String(line.quantity)
            json += ",\"reason\":"
            JSONString.append(line.reason.rawValue, to: &json)
            json += "}"
        }
        json += "]}"
        return Array(json.utf8)
    }

    private static func append(_ money: Money, to json: inout String) {
        json += "{\"amount\":"
        json += String(money.amount)
        json += ",\"currency\":"
        JSONString.append(money.currency.code, to: &json)
        json += "}"
    }
}
