import Synchronization

/// Lets a test hold a handler at a known point: the handler calls `enter()`
/// and waits; the test awaits `entered()` (or watches `waiting`) and later
/// calls `open()`. No sleeps.
final class Gate: Sendable {
    private let state = Mutex<(entered: Bool, open: Bool, enterWaiters: [CheckedContinuation<Void, Never>],
                               openWaiters: [CheckedContinuation<Void, Never>])>((false, false, [], []))

    /// Handlers held at the gate now: each one's connection is being answered.
    var waiting: Int { state.withLock { $0.openWaiters.count } }

    func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>]? in
                state.entered = true
                if state.open { return nil }
                state.openWaiters.append(continuation)
                let enterWaiters = state.enterWaiters
                state.enterWaiters = []
                return enterWaiters
            }
            guard let waiters else { return continuation.resume() }
            for waiter in waiters { waiter.resume() }
        }
    }

    func entered() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let already = state.withLock { state -> Bool in
                if state.entered { return true }
                state.enterWaiters.append(continuation)
                return false
            }
            if already { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.openWaiters = [] }
            return state.openWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
