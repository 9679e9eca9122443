/// Where an event sits in time order: a keyset cursor of the events' lists
/// (`<occurred_at>.<id>` as text), and a replay's step.
struct WebhookEventPosition: Sendable, Hashable {
    let occurredAt: Int64
    let id: String
    var type: String = ""

    var cursor: String { "\(occurredAt).\(id)" }

    /// A cursor this service issued, or nil.
    init?(cursor: String) {
        let parts = cursor.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let time = Int64(parts[0]), parts[1].hasPrefix("msg_") else { return nil }
        occurredAt = time
        id = String(parts[1])
    }

    init(occurredAt: Int64, id: String, type: String = "") {
        self.occurredAt = occurredAt
        self.id = id
        self.type = type
    }
}
