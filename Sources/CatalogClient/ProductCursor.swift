import Capabilities
import Domain
import FoundationEssentials

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

    /// The list's case folding (Swift's full Unicode `lowercased()`).
    static func fold(_ name: String) -> String { name.lowercased() }

    /// Names never hold control characters, so U+001F separates the parts.
    private static let separator: Character = "\u{1F}"

    var encoded: String {
        Base64URL.encode(Array((foldedName + String(ProductCursor.separator) + id).utf8))
    }

    init(foldedName: String, productID: ProductID) {
        self.foldedName = foldedName
        self.productID = productID
        self.id = productID.description
    }

    /// `nil` for text this type did not write.
    init?(encoded text: String) {
        guard let bytes = Base64URL.decode(text), let decoded = String(validating: bytes, as: UTF8.self),
              let split = decoded.lastIndex(of: ProductCursor.separator),
              // A search cursor (leading U+001E) names a place in another order.
              decoded.first?.unicodeScalars.first?.properties.generalCategory != .control
        else { return nil }
        let id = String(decoded[decoded.index(after: split)...])
        guard let productID = ProductID(id), productID.description == id else { return nil }
        self.init(foldedName: String(decoded[..<split]), productID: productID)
    }
}
