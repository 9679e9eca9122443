/// What a client gets when it (re)connects.
public struct LiveSubscription: Sendable {
    /// The current state of what changed after the client's `Last-Event-ID`
    /// (each feature's current state of it), oldest change first.
    public let replay: [LiveEvent]
    /// True when `Last-Event-ID` could not be resumed: malformed, older than
    /// the change outbox keeps, or newer than its head. The client should
    /// fetch its data afresh.
    public let mustRefetch: Bool
    /// What happens from now on, without what the replay already covered
    /// (ids up to the outbox head it was read at); finishes on logout and
    /// when the session's context is released.
    public let events: AsyncFilterSequence<AsyncStream<LiveEvent>>
}
