import Domain

extension JobQueue {
    /// Jobs per kind and state (queued, running, dead: what waits or needs
    /// an admin; finished ones are counted by the runners as they finish),
    /// and the age of each kind's oldest due job at `now`. One query, each
    /// state read through its partial index, the same answer on every replica.
    public static func statistics(_ handle: any StorageHandle, now: Int64) throws -> [JobKindStatistics] {
        var byKind: [String: JobKindStatistics] = [:]
        for row in try handle.query("""
            SELECT kind, 'queued', COUNT(*), MIN(CASE WHEN run_at <= ? THEN run_at END) FROM jobs
                WHERE state = 'queued' GROUP BY kind
            UNION ALL
            SELECT kind, 'running', COUNT(*), NULL FROM jobs WHERE state = 'running' GROUP BY kind
            UNION ALL
            SELECT kind, 'dead', COUNT(*), NULL FROM jobs WHERE state = 'dead' GROUP BY kind
            """, arguments: [.integer(now)]) {
            let kind: String = try row.get(0)
            let count = Int(try row.get(2, as: Int64.self))
            var entry = byKind[kind] ?? JobKindStatistics(kind: kind)
            switch try row.get(1, as: String.self) {
            case "queued":
                entry.queued = count
                if let oldest = try row.get(3, as: Int64?.self) { entry.oldestDueAgeMilliseconds = max(0, now - oldest) }
            case "running": entry.running = count
            default: entry.dead = count
            }
            byKind[kind] = entry
        }
        return byKind.values.sorted { $0.kind < $1.kind }
    }
}
