/// What a `reset` event carries: why the stream could not show a change.
public struct LiveReset: Sendable, Equatable {
    public let reason: String
}
