import Synchronization

/// An async counting limiter: at most `limit` holders at a time; up to
/// `maxWaiting` others wait, in FIFO order, as suspended continuations (no
/// thread is blocked), and any beyond are turned away: a queue without a
/// bound turns a flood of requests into unbounded memory and latency.
final class AsyncLimiter: Sendable {
    private struct State {
        var available: Int
        var waiters: [CheckedContinuation<Bool, Never>] = []
        /// Index of the first live waiter (avoids O(n) removeFirst).
        var head = 0
    }

    let limit: Int
    let maxWaiting: Int
    private let state: Mutex<State>

    init(limit: Int, maxWaiting: Int = .max) {
        precondition(limit > 0, "limit must be positive")
        self.limit = limit
        self.maxWaiting = max(0, maxWaiting)
        self.state = Mutex(State(available: limit))
    }

    /// Waiters currently suspended.
    var waiting: Int { state.withLock { $0.waiters.count - $0.head } }

    /// A slot, at once or after waiting; false (no slot taken) when
    /// `maxWaiting` others already wait.
    @discardableResult
    func acquire() async -> Bool {
        enum Entry { case acquired, wait, full }
        let entry = state.withLock { state -> Entry in
            if state.available > 0 {
                state.available -= 1
                return .acquired
            }
            return state.waiters.count - state.head < maxWaiting ? .wait : .full
        }
        switch entry {
        case .acquired: return true
        case .full: return false
        case .wait: break
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let answer: Bool? = state.withLock { state in
                if state.available > 0 {
                    state.available -= 1
                    return true
                }
                guard state.waiters.count - state.head < maxWaiting else { return false }
                state.waiters.append(continuation)
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    /// Hands the slot to the oldest waiter, or returns it to the pool.
    func release() {
        let next: CheckedContinuation<Bool, Never>? = state.withLock { state in
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
        next?.resume(returning: true)
    }
}
