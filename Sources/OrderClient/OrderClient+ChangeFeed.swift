import Axiom
import Capabilities
import Domain

/// Another replica placed or moved an order. Orders are read through to
/// storage and none is kept here, so nothing goes stale: the change is
/// only published, for an `/events` stream of that user on this process
/// (read once, and only when a session here observes the user).
extension OrderClient: ChangeSubscriber {
    public nonisolated var changeKinds: Set<ChangeKind> { [.order] }

    public func apply(_ change: Change) async {
        guard let id = OrderID(change.key), let user = change.userID.flatMap(UserID.init),
              stateBroadcaster.observerCount(key: user) > 0 else { return }
        // Storage away: the observer misses this change as it would a local
        // one whose read failed (LiveUpdatesContext resets for those it sees).
        guard let order = try? await storage.storedRead({ try OrderStore.order($0, id: id) }) else { return }
        // Only placing leaves an order pending (OrderStatus: pending moves to
        // confirmed or cancelled, never back), so a pending order read here
        // is a creation. One moved on before this read shows as a change.
        let update: OrderUpdate = order.status == .pending
            ? .created(order, sequence: change.sequence) : .changed(order, sequence: change.sequence)
        stateBroadcaster.publish(update, key: order.userID)
    }

    /// Nothing is cached.
    public func resynchronize() async {}
}

extension ChangeKind {
    public static let order = ChangeKind("order")
}
