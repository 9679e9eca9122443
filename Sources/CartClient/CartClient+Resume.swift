import Capabilities
import Domain

/// What a resuming `/events` stream needs from the carts: whether the
/// user's cart changed after the stream's last id, read from the outbox.
extension CartClient {
    /// The newest change of `user`'s cart in `(after, through]`, with the
    /// cart as stored, read in one snapshot; nil when it did not change.
    /// The stored cart, not the working set: the follower may not have
    /// evicted another replica's change yet. It may be newer than
    /// `through`; a change after it also comes live, showing the same cart.
    public nonisolated func cartChange(of user: UserID, after: Int64, through: Int64) async throws -> CartChangeSince? {
        let (latest, lines) = try await storage.storedRead { handle -> (Int64?, [CartLine]?) in
            let latest = try OutboxUserIndex.latest(handle, user: user.description, kind: .cart,
                                                  after: after, through: through)[user.description]
            return (latest, latest == nil ? nil : try CartStore.lines(handle, user: user))
        }
        guard let latest, let lines else { return nil }
        return CartChangeSince(sequence: latest, cart: try Cart(userID: user, lines: lines).validated())
    }
}
