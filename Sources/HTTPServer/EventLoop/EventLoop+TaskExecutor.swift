/// The loop is the task executor of its connections' handlers. Started with
/// `Task.immediate(executorPreference:)`, a handler that never suspends
/// runs inline on the loop and its response is written in the same turn;
/// one that awaits (an actor, storage) resumes on the loop again, so a
/// connection's state is only ever touched from its loop's thread.
extension EventLoop: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        execute { job.runSynchronously(on: executor) }
    }
}
