import Domain
import FoundationEssentials

/// The stored form of an order (`orders.document`), written and read by
/// hand: Foundation's Codable machinery (keyed containers, generic metadata
/// look-ups) was the bulk of decoding a `GET /orders` page of 21 documents
/// and of encoding each checkout's order. The text is what `JSONEncoder`
/// with `.sortedKeys` writes, byte for byte (OrderDocumentTests); documents
/// written before, by a default `JSONEncoder`, have their members in a
/// per-process random order (its objects are dictionaries), which the
/// reader accepts.
enum OrderDocument {
    static func text(_ order: Order) -> String {
        var writer = OrderDocumentWriter(capacity: 320 + 256 * order.lines.count)
        writer.raw("{")
        if let checkoutID = order.checkoutID {
            writer.raw("\"checkout_id\":")
            writer.string(checkoutID.description)
            writer.raw(",")
        }
        writer.raw("\"created_at\":")
        writer.string(order.createdAt.rfc3339)
        writer.raw(",\"id\":")
        writer.string(order.id.description)
        writer.raw(",\"items\":[")
        for (index, line) in order.lines.enumerated() {
            writer.raw(index == 0 ? "{\"line_total\":" : ",{\"line_total\":")
            writer.money(line.lineTotal)
            writer.raw(",\"name\":")
            writer.string(line.name)
            writer.raw(",\"product_id\":")
            writer.string(line.productID.description)
            writer.raw(",\"quantity\":")
            writer.integer(Int64(line.quantity))
            writer.raw(",\"unit_price\":")
            writer.money(line.unitPrice)
            writer.raw("}")
        }
        writer.raw("]")
        if let address = order.shippingAddress {
            writer.raw(",\"shipping_address\":")
            writer.address(address)
        }
        writer.raw(",\"status\":")
        writer.string(order.status.rawValue)
        writer.raw(",\"total\":")
        writer.money(order.total)
        writer.raw(",\"user_id\":")
        writer.string(order.userID.description)
        writer.raw("}")
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// The order in `text` if the hand reader understands all of it, else
    /// nil (never an order `JSONDecoder` would not return).
    static func order(from text: String) -> Order? {
        var text = text
        return text.withUTF8 { order(from: $0) }
    }

    static func order(from bytes: UnsafeBufferPointer<UInt8>) -> Order? {
        var reader = OrderDocumentReader(bytes)
        return reader.document()
    }

    /// A stored document's order: the hand reader, else `JSONDecoder` for
    /// whatever it left (and for its error, when the document is broken).
    static func decode(_ text: String) throws -> Order {
        if let order = order(from: text) { return order }
        return try JSONDecoder().decode(Order.self, from: Data(text.utf8))
    }
}
