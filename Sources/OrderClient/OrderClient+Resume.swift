import Capabilities
import Domain

/// What a resuming `/events` stream needs from the orders.
extension OrderClient {
    /// The orders of `user` changed in `(after, through]`, each with the
    /// sequence of its newest change there (from the outbox).
    public nonisolated func orderChanges(of user: UserID, after: Int64, through: Int64) async throws -> [OrderID: Int64] {
        try await storage.storedRead { handle in
            try OutboxUserIndex.latest(handle, user: user.description, kind: .order, after: after, through: through,
                                     key: OrderID.init)
        }
    }
}
