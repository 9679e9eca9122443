import Capabilities

/// Kinds for the feed's own tests; the clients declare the real ones.
extension ChangeKind {
    static let cart = ChangeKind("cart")
    static let order = ChangeKind("order")
}
