/// Which jobs an admin lists: by state, by kind, or all (newest first).
public struct JobFilter: Sendable, Hashable {
    public let state: JobState?
    public let kind: String?

    public init(state: JobState? = nil, kind: String? = nil) {
        self.state = state
        self.kind = kind
    }
}
