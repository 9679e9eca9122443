/// Where a job is in the queue. `queued` is due at its `run_at` (a failed
/// attempt is queued again later), `running` is held under a lease,
/// `succeeded`, `dead` and `discarded` (by an admin) are final, kept until
/// the retention prunes them.
public enum JobState: String, Sendable, Hashable, CaseIterable {
    case queued
    case running
    case succeeded
    case dead
    case discarded
}
