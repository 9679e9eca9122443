import Domain
import FoundationEssentials

/// The stored form of an order (`orders.document`): `Order.json`, the same
/// bytes as the order's served body. Documents written by earlier versions
/// (a `JSONEncoder`'s, members sorted or in a per-process random order)
/// are read by `Order(json:)` too; what it leaves (a whole number written
/// `2.0`, say) `JSONDecoder` still reads.
enum OrderDocument {
    static func text(_ order: Order) -> String {
        String(decoding: order.json, as: UTF8.self)
    }

    /// The order in `text` if the hand reader understands all of it, else nil.
    static func order(from text: String) -> Order? {
        var text = text
        return text.withUTF8 { Order(json: $0) }
    }

    /// A stored document's order: the hand reader, else `JSONDecoder` for
    /// whatever it left (and for its error, when the document is broken).
    static func decode(_ text: String) throws -> Order {
        if let order = order(from: text) { return order }
        return try JSONDecoder().decode(Order.self, from: Data(text.utf8))
    }
}
