/// One status change of an order, as recorded in the same transaction as
/// the change: the status it left (nil when the order was placed), the one
/// it reached, when, and its cause. Encodes as `{status, from, at, actor,
/// actor_id, reason}`.
public struct OrderHistoryEntry: Hashable, Sendable, Encodable {
    public let from: OrderStatus?
    public let status: OrderStatus
    public let at: Timestamp
    public let cause: OrderChangeCause

    public init(from: OrderStatus?, status: OrderStatus, at: Timestamp, cause: OrderChangeCause) {
        self.from = from
        self.status = status
        self.at = at
        self.cause = cause
    }

    enum CodingKeys: String, CodingKey {
        case status, from, at, actor
        case actorID = "actor_id"
        case reason
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        try container.encode(from, forKey: .from)
        try container.encode(at, forKey: .at)
        try container.encode(cause.actor.kind, forKey: .actor)
        try container.encode(cause.actor.userID, forKey: .actorID)
        try container.encode(cause.reason, forKey: .reason)
    }
}
