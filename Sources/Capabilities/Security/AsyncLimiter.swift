import Synchronization

/// An async counting limiter: at most `limit` holders at a time; the others
/// wait, in FIFO order, as suspended continuations (no thread is blocked).
final class AsyncLimiter: Sendable {
    private struct State {
        var available: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// Index of the first live waiter (avoids O(n) removeFirst).
        var head = 0
    }

    let limit: Int
    private let state: Mutex<State>

    init(limit: Int) {
        precondition(limit > 0, "limit must be positive")
        self.limit = limit
        self.state = Mutex(State(available: limit))
    }

    /// Waiters currently suspended.
    var waiting: Int { state.withLock { $0.waiters.count - $0.head } }

    func acquire() async {
        let acquired = state.withLock { state in
            guard state.available > 0 else { return false }
            state.available -= 1
            return true
        }
        if acquired { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state in
                if state.available > 0 {
                    state.available -= 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Hands the slot to the oldest waiter, or returns it to the pool.
    func release() {
        let next: CheckedContinuation<Void, Never>? = state.withLock { state in
            guard state.head < state.waiters.count else {
                state.available += 1
                precondition(state.available <= limit, "release without acquire")
                return nil
            }
            let waiter = state.waiters[state.head]
            state.head += 1
            if state.head == state.waiters.count {
                state.waiters.removeAll(keepingCapacity: true)
                state.head = 0
            } else if state.head > 1024 && state.head * 2 > state.waiters.count {
                state.waiters.removeFirst(state.head)
                state.head = 0
            }
            return waiter
        }
        next?.resume()
    }
}
