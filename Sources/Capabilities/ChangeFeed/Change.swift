/// One committed row of the `changes` outbox, as a follower reads it.
public struct Change: Sendable, Hashable {
    /// The row's position: followers read rows in position order, and one
    /// user's positions increase in commit order (see `ChangeOutbox`). What
    /// an `/events` id carries.
    public let sequence: Int64
    /// The row's own number: breaks ties between positions of different users.
    public let row: Int64
    public let kind: ChangeKind
    public let key: String
    public let userID: String?
    /// The storage instance that wrote it (`changeOrigin`): a follower skips
    /// its own process's changes, which were applied when they were made.
    public let origin: String

    public init(sequence: Int64, row: Int64? = nil, kind: ChangeKind, key: String, userID: String?, origin: String) {
        self.sequence = sequence
        self.row = row ?? sequence
        self.kind = kind
        self.key = key
        self.userID = userID
        self.origin = origin
    }
}
