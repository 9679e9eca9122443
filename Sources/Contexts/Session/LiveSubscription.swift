/// What a client gets when it (re)connects.
public struct LiveSubscription: Sendable {
    /// The events after the client's `Last-Event-ID`, oldest first.
    public let replay: [LiveEvent]
    /// True when `Last-Event-ID` could not be resumed: older than the replay
    /// buffer, or from another session or process. The client should fetch
    /// the cart and orders afresh.
    public let mustRefetch: Bool
    /// What happens from now on; finishes on logout and when the session's
    /// context is released.
    public let events: AsyncStream<LiveEvent>
}
