import Synchronization

/// The runner's sleep between looks at the queue: it ends after its
/// duration, at `signal()` (a job finished and left room), or when the
/// waiting task is cancelled (shutdown). A signal while nobody waits is
/// kept for the next wait, so none is lost between two waits.
final class JobWakeup: Sendable {
    private struct Waiting {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(Waiting())

    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    func wait(for duration: Duration) async {
        let timer = Task { [self] in
            try? await Task.sleep(for: duration)
            signal()
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            signal()
        }
        timer.cancel()
    }
}
