import Domain

extension StorageHandle {
    /// Enqueues `job` in this write's transaction: committed with the
    /// change that causes it, or rolled back with it. Answers false when
    /// a job of its kind and unique key is already queued or running (it
    /// stays the one). Enqueued at once, not pipelined: the answer is needed.
    @discardableResult
    public func enqueue(_ job: JobRequest) throws -> Bool {
        let changed = try execute("""
            INSERT INTO jobs(kind, payload, unique_key, state, max_attempts, sensitive, run_at, created_at)
            VALUES(?, ?, ?, 'queued', ?, ?, ?, ?) ON CONFLICT DO NOTHING
            """, arguments: [.text(job.kind.name), .text(String(decoding: job.payload, as: UTF8.self)),
                             job.uniqueKey.map(StorageValue.text) ?? .null, .integer(Int64(job.kind.maxAttempts)),
                             .integer(job.kind.sensitive ? 1 : 0), .integer(job.runAt), .integer(job.enqueuedAt)])
        return changed == 1
    }
}

extension StorageHandle {
    /// Enqueues `job`, or, when a job of its kind and unique key is queued
    /// for later than `job.runAt`, brings that one forward to it (a job
    /// that must run now, such as an admin's retry of what it does). A
    /// running one is left to finish: it runs no earlier for this.
    public func enqueueOrAdvance(_ job: JobRequest) throws {
        if let key = job.uniqueKey {
            try execute("""
                UPDATE jobs SET run_at = ? WHERE kind = ? AND unique_key = ? AND state = 'queued' AND run_at > ?
                """, arguments: [.integer(job.runAt), .text(job.kind.name), .text(key), .integer(job.runAt)])
        }
        try enqueue(job)
    }
}
