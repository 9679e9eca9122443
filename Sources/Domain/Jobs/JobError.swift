/// Refusals of the job queue's admin actions.
public enum JobError: Refusal, Hashable {
    /// Retry takes a dead job, discard a queued or dead one: the job is in
    /// another state now (a running job finishes first).
    case notInState(id: Int64, state: JobState, action: String)
    /// A sensitive job's payload is erased when it dies: it cannot run again.
    case payloadErased(id: Int64)
    /// Another job of its kind and unique key is queued or running.
    case duplicateQueued(id: Int64, kind: String)

    public var code: String {
        switch self {
        case .notInState: "job_state_conflict"
        case .payloadErased: "job_payload_erased"
        case .duplicateQueued: "job_duplicate_queued"
        }
    }

    public var category: RefusalCategory { .conflict }

    public var message: String {
        switch self {
        case .notInState(let id, let state, let action):
            "job \(id) is \(state.rawValue); it cannot be \(action) now"
        case .payloadErased(let id):
            "job \(id) held a secret, erased when it died; enqueue its work anew instead"
        case .duplicateQueued(let id, let kind):
            "another \(kind) job with the unique key of job \(id) is queued or running"
        }
    }
}
