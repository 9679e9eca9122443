import Axiom
import Domain

/// The work of some job kinds, declared beside the feature that enqueues
/// them. The composition root lists the works (`JobWorks`); the job
/// runner makes one of each through its own creation token, so a work
/// resolves its clients as a context does.
///
/// `run` returns when the job is done. A `PermanentFailure` makes the job
/// `dead` at once; any other error is retried later, until its attempts
/// run out. A job may run more than once (a lease that ran out, a kill
/// between the work and its record), so a work is idempotent or says how
/// a repeat is recognised (a mail's `Message-ID`).
public protocol JobWork: Sendable {
    static var kinds: [JobKind] { get }

    init(_ creation: ContextCreation) throws

    func run(_ job: Job) async throws
}
