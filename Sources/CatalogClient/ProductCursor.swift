import Domain
import Foundation

/// A position in the product list: the list is ordered by the case-folded
/// name, then by id, so the order is total and stable. A cursor names the
/// last item of a page; the next page starts after that position, whatever
/// was created, renamed or deactivated meanwhile (nothing is skipped or
/// repeated that kept its place). Written as base64url text, opaque to
/// callers.
struct ProductCursor: Hashable, Sendable, Comparable {
    let foldedName: String
    /// The product's id, and its lower-case text (compared as text).
    let productID: ProductID
    let id: String

    static func < (lhs: ProductCursor, rhs: ProductCursor) -> Bool {
        lhs.foldedName != rhs.foldedName ? lhs.foldedName < rhs.foldedName : lhs.id < rhs.id
    }

    static func == (lhs: ProductCursor, rhs: ProductCursor) -> Bool {
        lhs.foldedName == rhs.foldedName && lhs.id == rhs.id
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(foldedName)
        hasher.combine(id)
    }

    /// Names never hold control characters, so U+001F separates the parts.
    private static let separator: Character = "\u{1F}"

    var encoded: String {
        let raw = Data((foldedName + String(ProductCursor.separator) + id).utf8).base64EncodedString()
        var text = raw.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    init(foldedName: String, productID: ProductID) {
        self.foldedName = foldedName
        self.productID = productID
        self.id = productID.description
    }

    /// `nil` for text this type did not write.
    init?(encoded text: String) {
        guard text.utf8.allSatisfy({ byte in
            (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let decoded = String(data: data, encoding: .utf8),
              let split = decoded.lastIndex(of: ProductCursor.separator)
        else { return nil }
        let id = String(decoded[decoded.index(after: split)...])
        guard let productID = ProductID(id), productID.description == id else { return nil }
        self.init(foldedName: String(decoded[..<split]), productID: productID)
    }
}
