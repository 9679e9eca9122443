import Dispatch

/// Runs a connection's handler tasks on the connection's own serial queue.
/// Started with `Task.immediate(executorPreference:)`, a handler that never
/// suspends runs inline and its response is written in the same turn of the
/// queue; one that awaits (an actor, storage) resumes here again, so the
/// connection's state is only ever touched from its queue, with no extra hop.
final class QueueTaskExecutor: TaskExecutor, @unchecked Sendable {
    let queue: DispatchQueue

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
