import Capabilities
import Domain
import FoundationEssentials

/// A position in a search's result order: bm25 rank ascending (best
/// first), then the product's row number in the search index (ties in
/// insertion order). The rank is carried as its exact bit pattern, so the
/// next page starts right after the very value SQLite computed. Ranks depend
/// on the whole index (bm25 weighs a word by how rare it is), so a page
/// boundary is exact while the indexed text is unchanged; after a change, a
/// product may move across it. Written as base64url, opaque to callers, and
/// told apart from a list cursor by its leading marker.
struct SearchCursor: Hashable, Sendable {
    let rank: Double
    let rowid: Int64

    /// Not a character a folded name can start a list cursor with: names
    /// never hold control characters. (The first search cursors, which
    /// carried a product id, used U+001E: they are refused as not issued.)
    private static let marker: Character = "\u{1D}"
    private static let separator: Character = "\u{1F}"

    init(rank: Double, rowid: Int64) {
        self.rank = rank
        self.rowid = rowid
    }

    var encoded: String {
        let bits = String(rank.bitPattern, radix: 16)
        let text = String(SearchCursor.marker) + bits + String(SearchCursor.separator) + String(rowid)
        return Base64URL.encode(Array(text.utf8))
    }

    /// `nil` for text this type did not write.
    init?(encoded text: String) {
        guard let bytes = Base64URL.decode(text), let decoded = String(validating: bytes, as: UTF8.self),
              decoded.first == SearchCursor.marker,
              let split = decoded.firstIndex(of: SearchCursor.separator),
              let bits = UInt64(decoded[decoded.index(after: decoded.startIndex)..<split], radix: 16),
              let rowid = Int64(decoded[decoded.index(after: split)...]), rowid > 0
        else { return nil }
        self.init(rank: Double(bitPattern: bits), rowid: rowid)
    }

    /// Whether a match at `rank`, `rowid` comes after this position.
    func precedes(rank other: Double, rowid otherRowid: Int64) -> Bool {
        rank < other || (rank == other && rowid < otherRowid)
    }
}
