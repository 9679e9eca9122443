/// What a resumed stream is sent before going live: the current state of
/// what changed after the client's id, and the outbox head it was read at.
struct LiveReplay: Sendable {
    /// Ordered by id (each change's newest sequence in the range).
    let events: [LiveEvent]
    /// Live events up to this id are covered by `events` and not sent again.
    let through: Int64
}
