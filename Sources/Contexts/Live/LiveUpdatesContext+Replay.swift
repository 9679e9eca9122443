import Domain

/// Resuming a stream from a `Last-Event-ID`: the change outbox, not this
/// process, knows what happened since, so the same id resumes on any
/// replica and after a restart.
extension LiveUpdatesContext {
    /// What each feature shows of the changes after `sequence`, read from
    /// storage up to one outbox head, taken once for every feature; nil when
    /// the outbox cannot tell (the id is pruned or from its future).
    func replay(for user: UserID, after sequence: Int64) async throws -> LiveReplay? {
        guard let head = try await users.call({ try await $0.resumableHead(after: sequence) }) else { return nil }
        var events: [LiveEvent] = []
        for feature in features {
            events += try await feature.replay(of: user, after: sequence, through: head)
        }
        // A reset first, then the changes in sequence order.
        events.sort { ($0.id ?? 0) < ($1.id ?? 0) }
        return LiveReplay(events: events, through: head)
    }
}
