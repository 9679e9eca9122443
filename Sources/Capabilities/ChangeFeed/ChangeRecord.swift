/// What a write records in the outbox, in its own transaction
/// (`StorageHandle.recordChange`): enough for a follower to invalidate or
/// refresh its working set, never the data itself (the follower reads that
/// from the database, which is the authority).
public struct ChangeRecord: Sendable, Hashable {
    public let kind: ChangeKind
    /// The changed entity's id: a product, a user, a session, a cart's user, an order.
    public let key: String
    /// The user the change concerns, if any (their `/events` streams replay it).
    public let userID: String?

    public init(kind: ChangeKind, key: String, userID: String? = nil) {
        self.kind = kind
        self.key = key
        self.userID = userID
    }
}
