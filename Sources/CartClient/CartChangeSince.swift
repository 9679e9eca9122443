import Domain

/// The answer of `CartClient.cartChange(of:after:)`.
public struct CartChangeSince: Sendable, Equatable {
    /// False when the id is older than the outbox keeps, or newer than its
    /// head (another database, a made-up id): nothing can be replayed.
    public let resumable: Bool
    /// The outbox head the answer was read at: a replay covers changes up
    /// to it, the live stream those after it.
    public let through: Int64
    /// The newest change of the cart in the range, if it changed.
    public let sequence: Int64?
    /// The cart as stored at `through`, when it changed: at least as new as
    /// that change, whatever this process's working set holds (its follower
    /// may not have evicted another replica's change yet).
    public let cart: Cart?
}
