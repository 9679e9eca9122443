import Domain

extension JobQueue {
    static let recordColumns = """
        id, kind, state, payload, unique_key, attempts, max_attempts, sensitive, run_at, lease_owner, lease_until,
        last_error, created_at, finished_at
        """

    /// One job as admins see it, nil when there is none with `id`.
    public static func record(_ handle: any StorageHandle, id: Int64) throws -> JobRecord? {
        try handle.queryOne("SELECT \(recordColumns) FROM jobs WHERE id = ?", arguments: [.integer(id)]).map(record)
    }

    /// Up to `limit` jobs that `filter` keeps, newest first (by id), after
    /// the job `after` (the previous page's last id).
    public static func list(_ handle: any StorageHandle, filter: JobFilter, after: Int64?,
                            limit: Int) throws -> [JobRecord] {
        var conditions: [String] = []
        var arguments: [StorageValue] = []
        if let state = filter.state {
            conditions.append("state = ?")
            arguments.append(.text(state.rawValue))
        }
        if let kind = filter.kind {
            conditions.append("kind = ?")
            arguments.append(.text(kind))
        }
        if let after {
            conditions.append("id < ?")
            arguments.append(.integer(after))
        }
        let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        return try handle.query("SELECT \(recordColumns) FROM jobs \(whereClause) ORDER BY id DESC LIMIT ?",
                                arguments: arguments + [.integer(Int64(limit))]).map(record)
    }

    /// A dead job queued again, due at `now`, its attempts reset and its
    /// last error kept until the next attempt. Refused for a job in
    /// another state, for a sensitive one (its payload was erased when it
    /// died), and while another job of its kind and unique key is queued
    /// or running (the unique key holds).
    public static func retry(_ handle: any StorageHandle, id: Int64, now: Int64) throws -> JobRecord {
        let current = try locked(handle, id)
        guard current.state == .dead else { throw JobError.notInState(id: id, state: current.state, action: "retried") }
        guard !current.sensitive else { throw JobError.payloadErased(id: id) }
        if let key = current.uniqueKey, try handle.queryOne("""
            SELECT id FROM jobs WHERE kind = ? AND unique_key = ? AND state IN ('queued', 'running')
            """, arguments: [.text(current.kind), .text(key)]) != nil {
            throw JobError.duplicateQueued(id: id, kind: current.kind)
        }
        try handle.execute("""
            UPDATE jobs SET state = 'queued', attempts = 0, run_at = ?, finished_at = NULL WHERE id = ?
            """, arguments: [.integer(now), .integer(id)])
        return try locked(handle, id)
    }

    /// A queued or dead job taken out of the queue: `discarded` (final,
    /// never run again, pruned with the other finished jobs; a sensitive
    /// payload erased). A running job is refused: it finishes first.
    public static func discard(_ handle: any StorageHandle, id: Int64, now: Int64) throws -> JobRecord {
        let current = try locked(handle, id)
        guard current.state == .queued || current.state == .dead else {
            throw JobError.notInState(id: id, state: current.state, action: "discarded")
        }
        try handle.execute("""
            UPDATE jobs SET state = 'discarded', finished_at = ?,
                payload = CASE WHEN sensitive = 1 THEN '{}' ELSE payload END
            WHERE id = ?
            """, arguments: [.integer(now), .integer(id)])
        return try locked(handle, id)
    }

    private static func locked(_ handle: any StorageHandle, _ id: Int64) throws -> JobRecord {
        guard let found = try handle.queryOne("SELECT \(recordColumns) FROM jobs WHERE id = ?\(handle.lockingRead)",
                                              arguments: [.integer(id)]).map(record) else {
            throw EntityError.notFound(entity: "job", id: String(id))
        }
        return found
    }

    private static func record(_ row: StorageRow) throws -> JobRecord {
        let sensitive = try row.get(7, as: Int64.self) == 1
        let state = try row.get(2, as: String.self)
        return JobRecord(
            id: try row.get(0), kind: try row.get(1), state: JobState(rawValue: state) ?? .dead,
            payload: sensitive ? nil : Array(try row.get(3, as: String.self).utf8), uniqueKey: try row.get(4),
            attempts: Int(try row.get(5, as: Int64.self)), maxAttempts: Int(try row.get(6, as: Int64.self)),
            sensitive: sensitive, runAt: try row.get(8), leaseOwner: try row.get(9), leaseUntil: try row.get(10),
            lastError: try row.get(11), createdAt: try row.get(12), finishedAt: try row.get(13))
    }
}
