/// One of a user's sign-in sessions as `GET /me/sessions` lists it: never
/// its token (only the token's hash is stored). Whether it was last seen
/// when is not recorded: that would be a write on every request.
/// Encodes as `{id, created_at, expires_at, current}`.
public struct SessionSummary: Hashable, Sendable, Encodable {
    public let id: String
    public let createdAt: Timestamp
    public let expiresAt: Timestamp
    /// The session the listing request came with.
    public let current: Bool

    public init(id: String, createdAt: Timestamp, expiresAt: Timestamp, current: Bool) {
        self.id = id
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.current = current
    }

    public func marked(current: Bool) -> SessionSummary {
        SessionSummary(id: id, createdAt: createdAt, expiresAt: expiresAt, current: current)
    }

    enum CodingKeys: String, CodingKey {
        case id
        case createdAt = "created_at"
        case expiresAt = "expires_at"
        case current
    }
}
