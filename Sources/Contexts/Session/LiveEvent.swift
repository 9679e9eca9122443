/// An update with its place in one session's stream. `id` is opaque to
/// clients: they send the last one back as `Last-Event-ID` to resume.
public struct LiveEvent: Sendable {
    public let id: String
    public let update: LiveUpdate
}
