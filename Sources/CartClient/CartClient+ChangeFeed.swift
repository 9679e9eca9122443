import Axiom
import Capabilities
import Domain

/// Another replica changed a user's cart: the cart kept here is stale.
/// It is forgotten; if a session of this process observes that user (an
/// `/events` stream), the cart is read again in the user's turn (after
/// any local write in flight) and published as a local change is, so the
/// stream shows it.
extension CartClient: ChangeSubscriber {
    public nonisolated var changeKinds: Set<ChangeKind> { [.cart] }

    public func apply(_ change: Change) async {
        guard let user = UserID(change.key) else { return }
        await enterTurn(for: user)
        defer { leaveTurn(for: user) }
        cache.forget(user)
        guard stateBroadcaster.observerCount(key: user) > 0 else { return }
        // Storage away: nothing is kept, so the next read goes to storage;
        // the observer misses this one change (LiveUpdatesContext's reset
        // covers what it cannot price).
        guard let cart = try? await cart(for: user) else { return }
        stateBroadcaster.publish(.changed(cart, sequence: change.sequence), key: user)
    }

    public func resynchronize() async {
        cache.forgetAll()
    }
}

extension ChangeKind {
    public static let cart = ChangeKind("cart")
}
