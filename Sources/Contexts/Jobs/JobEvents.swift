import Synchronization

/// What a job's work has to say beside its outcome (`payments_expired`
/// with how many): recorded while it runs, handed with the outcome to the
/// runner's observer (the composition root logs them). Bound per run as a
/// task local, so a work records without holding a logger.
public final class JobEvents: Sendable {
    @TaskLocal static var current: JobEvents?

    private let recorded = Mutex<[JobEvent]>([])

    init() {}

    /// Records `event` for the job running in this task (nothing outside one).
    public static func record(_ event: JobEvent) {
        current?.recorded.withLock { $0.append(event) }
    }

    var all: [JobEvent] { recorded.withLock { $0 } }
}

/// One thing a job's work reports: a log event's name, its text and
/// numeric fields, and whether it warns (something left undone).
public struct JobEvent: Sendable {
    public let name: String
    public let fields: [(String, String)]
    public let numbers: [(String, Int)]
    public let warns: Bool

    public init(_ name: String, fields: [(String, String)] = [], numbers: [(String, Int)] = [], warns: Bool = false) {
        self.name = name
        self.fields = fields
        self.numbers = numbers
        self.warns = warns
    }
}

/// A job's attempt as it ended here, for the runner's observer.
public struct JobOutcome: Sendable {
    public enum Result: Sendable {
        case succeeded
        /// Failed with `error`; `dead` when it will not be tried again.
        case failed(error: String, dead: Bool)
        /// Not due yet (`JobSnooze`): queued again, the attempt given back.
        case snoozed
    }

    public let kind: String
    public let jobID: Int64
    public let attempt: Int
    public let result: Result
    public let events: [JobEvent]
}
