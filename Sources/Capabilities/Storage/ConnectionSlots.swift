import Dispatch
import Synchronization

/// A connection slot confined to its own serial Dispatch queue.
protocol QueuedSlot: AnyObject, Sendable {
    var queue: DispatchQueue { get }
}

/// The scheduling both reader pools share (SQLite's `ReaderPool`,
/// `PostgresReaderPool`): a fixed set of slots, each used by one holder at a
/// time. A job takes an idle slot and runs on its queue, or waits (FIFO, no
/// thread held) for the next slot given back; after `close` it gets nil. The
/// pools differ only in what a slot holds and how it connects.
final class ConnectionSlots<Slot: QueuedSlot>: Sendable {
    typealias Job = @Sendable (Slot?) -> Void

    private struct State {
        var idle: [Int]
        var waiting: [Job] = []
        var closed = false
    }

    let slots: [Slot]
    private let state: Mutex<State>

    init(_ slots: [Slot]) {
        self.slots = slots
        state = Mutex(State(idle: Array(slots.indices)))
    }

    /// Slots busy and jobs waiting, now.
    var usage: ReaderPoolUsage {
        state.withLock { ReaderPoolUsage(size: slots.count, busy: slots.count - $0.idle.count, waiting: $0.waiting.count) }
    }

    /// Runs `job` on an idle slot's queue (now, or when one frees up); nil once closed.
    func submit(_ job: @escaping Job) {
        // An idle slot's index, nil to wait, or closed.
        let (index, closed): (Int?, Bool) = state.withLock { state in
            if state.closed { return (nil, true) }
            guard let index = state.idle.popLast() else {
                state.waiting.append(job)
                return (nil, false)
            }
            return (index, false)
        }
        if let index { run(job, on: index) } else if closed { job(nil) }
    }

    /// Refuses new jobs, gives the waiting ones nil, then runs `finish` on
    /// each slot's queue (after whatever job holds it).
    func close(finishing finish: @escaping @Sendable (Slot) -> Void) async {
        let waiting = state.withLock { state in
            state.closed = true
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        for job in waiting { job(nil) }
        for slot in slots {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                slot.queue.async {
                    finish(slot)
                    continuation.resume()
                }
            }
        }
    }

    private func run(_ job: @escaping Job, on index: Int) {
        let slot = slots[index]
        slot.queue.async {
            job(slot)
            self.release(index)
        }
    }

    /// Hands slot `index` to the next waiter (on its queue), or marks it idle.
    private func release(_ index: Int) {
        let next: Job? = state.withLock { state in
            if state.waiting.isEmpty {
                state.idle.append(index)
                return nil
            }
            return state.waiting.removeFirst()
        }
        if let next { run(next, on: index) }
    }
}
