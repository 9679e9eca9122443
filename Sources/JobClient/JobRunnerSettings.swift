/// How this process runs jobs (`jobs_*` settings): at most `concurrency`
/// at once, claimed under a lease of `lease` that the runner renews while
/// a job runs, a look for due jobs at least every `pollInterval`, and
/// finished jobs kept for `retention` before the prune deletes them.
public struct JobRunnerSettings: Sendable, Hashable {
    public let concurrency: Int
    public let pollInterval: Duration
    public let lease: Duration
    public let retention: Duration
    /// This process's name in `jobs.lease_owner` (its checkout lease owner).
    public let owner: String

    public init(concurrency: Int = 4, pollInterval: Duration = .milliseconds(50), lease: Duration = .seconds(60),
                retention: Duration = .seconds(7 * 86_400), owner: String = "local") {
        self.concurrency = max(1, concurrency)
        self.pollInterval = pollInterval
        self.lease = lease
        self.retention = retention
        self.owner = owner
    }
}

extension Duration {
    /// Whole milliseconds, as the queue stores times.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
