import Capabilities
import Domain
import FoundationEssentials

/// A position in a search's result order: bm25 rank ascending (best
/// first), then id. The rank is carried as its exact bit pattern, so the
/// next page's `rank > r OR (rank = r AND id > i)` compares against the
/// very value SQLite computed. Ranks depend on the whole index (bm25 weighs
/// a word by how rare it is), so a page boundary is exact while the
/// catalogue is unchanged; after a change, a product may move across it.
/// Written as base64url, opaque to callers, and told apart from a list
/// cursor by its leading marker.
struct SearchCursor: Hashable, Sendable {
    let rank: Double
    let productID: ProductID

    /// Not a character a folded name can start a list cursor with: names
    /// never hold control characters.
    private static let marker: Character = "\u{1E}"
    private static let separator: Character = "\u{1F}"

    init(rank: Double, productID: ProductID) {
        self.rank = rank
        self.productID = productID
    }

    var encoded: String {
        let bits = String(rank.bitPattern, radix: 16)
        let text = String(SearchCursor.marker) + bits + String(SearchCursor.separator) + productID.description
        return Base64URL.encode(Array(text.utf8))
    }

    /// `nil` for text this type did not write.
    init?(encoded text: String) {
        guard let bytes = Base64URL.decode(text), let decoded = String(validating: bytes, as: UTF8.self),
              decoded.first == SearchCursor.marker,
              let split = decoded.firstIndex(of: SearchCursor.separator),
              let bits = UInt64(decoded[decoded.index(after: decoded.startIndex)..<split], radix: 16)
        else { return nil }
        let id = String(decoded[decoded.index(after: split)...])
        guard let productID = ProductID(id), productID.description == id else { return nil }
        self.init(rank: Double(bitPattern: bits), productID: productID)
    }
}
