import Capabilities
import Domain

/// What a resuming `/events` stream needs from the payments.
extension PaymentClient {
    /// The orders of `user` whose payment changed in `(after, through]`
    /// without the order following (those are the order's own changes),
    /// each with the sequence of its newest such change.
    public nonisolated func paymentChanges(of user: UserID, after: Int64, through: Int64) async throws -> [OrderID: Int64] {
        try await storage.storedRead { handle in
            try OutboxUserIndex.latest(handle, user: user.description, kind: .payment, after: after, through: through,
                                     key: OrderID.init)
        }
    }
}
