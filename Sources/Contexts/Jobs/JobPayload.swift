import Domain

/// A job's payload read by its work: one that does not decode never will,
/// so the job is dead at once with the reason.
enum JobPayload {
    struct Unreadable: PermanentFailure {
        let kind: String
        let detail: String
        var reason: String { "a \(kind) job's payload cannot be read: \(detail)" }
    }

    static func decode<T>(_ job: Job, _ read: (Job) throws -> T) throws -> T {
        do {
            return try read(job)
        } catch {
            throw Unreadable(kind: job.kind, detail: String(describing: error))
        }
    }
}
