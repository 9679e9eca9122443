import Domain
import JobClient

extension AdminContext {
    /// The job queue's jobs that `filter` keeps, newest first, a keyset
    /// page after `cursor` (the previous page's last id).
    public func jobs(_ filter: JobFilter, limit: Int, after cursor: String?) async throws -> Page<JobRecord> {
        try await jobs.call { try await $0.jobs(matching: filter, limit: limit, after: cursor) }
    }

    /// One job (`job_not_found`); a sensitive kind's payload is not shown.
    public func job(_ id: Int64) async throws -> JobRecord {
        try await jobs.call { try await $0.job(id) }
    }

    /// A dead job queued again, attempts reset (409 `job_state_conflict`
    /// for a job in any other state).
    public func retryJob(_ id: Int64) async throws -> JobRecord {
        try await jobs.call { try await $0.retry(id) }
    }

    /// A queued or dead job `discarded`: out of the queue, never run again
    /// (409 `job_state_conflict` while running or once finished).
    public func discardJob(_ id: Int64) async throws -> JobRecord {
        try await jobs.call { try await $0.discard(id) }
    }
}
