/// One committed row of the `changes` outbox, as a follower reads it.
public struct Change: Sendable, Hashable {
    /// The global sequence: commit order on both backends (see `ChangeOutbox`).
    public let sequence: Int64
    public let kind: ChangeKind
    public let key: String
    public let userID: String?
    /// The storage instance that wrote it (`changeOrigin`): a follower skips
    /// its own process's changes, which were applied when they were made.
    public let origin: String

    public init(sequence: Int64, kind: ChangeKind, key: String, userID: String?, origin: String) {
        self.sequence = sequence
        self.kind = kind
        self.key = key
        self.userID = userID
        self.origin = origin
    }
}
