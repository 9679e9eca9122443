import Capabilities
import Domain

/// What a resuming `/events` stream needs from the carts: whether the
/// user's cart changed after the stream's last id, read from the outbox.
extension CartClient {
    /// The outbox's window and the newest cart change of `user` after
    /// `sequence` up to the window's head, with the stored cart, in one
    /// snapshot: the head is where the replay ends and the live stream
    /// takes over.
    public func cartChange(of user: UserID, after sequence: Int64) async throws -> CartChangeSince {
        let (window, latest, lines) = try await storage.storedRead { handle -> (OutboxUserIndex.Window, Int64?, [CartLine]?) in
            let window = try OutboxUserIndex.window(handle)
            guard window.canResume(after: sequence) else { return (window, nil, nil) }
            let latest = try OutboxUserIndex.latest(handle, user: user.description, kind: .cart,
                                                  after: sequence, through: window.head)[user.description]
            return (window, latest, latest == nil ? nil : try CartStore.lines(handle, user: user))
        }
        let cart = try lines.map { try Cart(userID: user, lines: $0).validated() }
        return CartChangeSince(resumable: window.canResume(after: sequence), through: window.head,
                               sequence: latest, cart: cart)
    }
}
