import Axiom
import Capabilities
import Domain

/// Another replica changed a product (fields, price, active) or its stock:
/// the kept product and every kept search ranking may be stale. The product
/// is forgotten, read again and published as a local change is (the
/// representation cache and observers follow the publication).
extension CatalogClient: ChangeSubscriber {
    public nonisolated var changeKinds: Set<ChangeKind> { [.product, .stock] }

    public func apply(_ change: Change) async {
        guard let id = ProductID(change.key) else { return }
        cache.forget(id)
        if change.kind == .product { searches.withLock { $0.invalidate() } }
        // Storage away: it stays forgotten, so the next read goes to storage.
        guard let product = try? await product(id) else { return }
        stateBroadcaster.publish(.changed(product))
    }

    public func resynchronize() async {
        searches.withLock { $0.invalidate() }
        cache.forgetAll()
    }
}

extension ChangeKind {
    /// A product's fields, price or active flag changed.
    public static let product = ChangeKind("product")
    /// A product's stock changed (a reservation, a release, a return).
    public static let stock = ChangeKind("stock")
}
