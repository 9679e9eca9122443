import Axiom
import Capabilities
import Domain

/// Another replica changed a user's wishlist. Nothing is cached here; if a
/// session of this process observes that user (an `/events` stream), the
/// list is read and published as a local change is, with the change's
/// sequence, so the stream shows it with the same id.
extension WishlistClient: ChangeSubscriber {
    public nonisolated var changeKinds: Set<ChangeKind> { [.wishlist] }

    public func apply(_ change: Change) async {
        guard let user = UserID(change.key), stateBroadcaster.observerCount(key: user) > 0 else { return }
        // Storage away: the observer misses this change, as a cart's would;
        // the next change or a resume shows the list as stored.
        guard let items = try? await items(of: user) else { return }
        stateBroadcaster.publish(.changed(user, items, sequence: change.sequence), key: user)
    }

    public func resynchronize() async {}
}

extension ChangeKind {
    public static let wishlist = ChangeKind("wishlist")
}

/// What a resuming `/events` stream needs from the wishlists.
extension WishlistClient {
    /// The newest change of `user`'s wishlist in `(after, through]` and the
    /// list as stored, in one snapshot; nil when it did not change.
    public nonisolated func wishlistChange(of user: UserID, after: Int64, through: Int64) async throws
        -> (sequence: Int64, items: [ProductID])? {
        let found = try await storage.storedRead { handle -> (Int64, [ProductID])? in
            guard let latest = try OutboxUserIndex.latest(handle, user: user.description, kind: .wishlist,
                                                          after: after, through: through)[user.description]
            else { return nil }
            return (latest, try WishlistStore.items(handle, user: user))
        }
        return found.map { (sequence: $0.0, items: $0.1) }
    }
}
