/// An update with its place in the user's stream. `id` is the change's
/// sequence in the change outbox, the same on every process: a client sends
/// the last one back as `Last-Event-ID` to resume anywhere. Nil for an
/// event that has none to give (a reset; a change that reached this
/// process after a newer one was sent, so the client's resume point stays
/// the newer id).
public struct LiveEvent: Sendable {
    public let id: Int64?
    public let update: LiveUpdate
    /// The change's sequence, whether or not it went out as the id: a
    /// resumed stream drops what its replay covered by this, since a late
    /// change (sent without an id) may be one of them.
    let sequence: Int64?
}
