import Axiom
import Capabilities
import Domain

/// Another replica changed a payment in a way its order does not follow (a
/// refund, a late success on a cancelled order: the only payment changes
/// recorded, see `PaymentClient.recordChange`). Payments are read through to
/// storage, so nothing is stale here: the payment is read and published for
/// an `/events` stream of that user on this process, if one observes it.
extension PaymentClient: ChangeSubscriber {
    public nonisolated var changeKinds: Set<ChangeKind> { [.payment] }

    public func apply(_ change: Change) async {
        guard let order = OrderID(change.key), let user = change.userID.flatMap(UserID.init),
              stateBroadcaster.observerCount(key: user) > 0 else { return }
        guard let payment = try? await storage.storedRead({ try PaymentStore.payment($0, order: order) }) else { return }
        stateBroadcaster.publish(.changedElsewhere(payment, sequence: change.sequence), key: payment.userID)
    }

    /// Nothing is cached.
    public func resynchronize() async {}
}

extension ChangeKind {
    public static let payment = ChangeKind("payment")
}
