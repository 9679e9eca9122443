import Dispatch
import Synchronization

/// A few read-only connections, each confined to its own serial Dispatch
/// queue. A read takes an idle connection or waits (FIFO) for one; waiting
/// costs no thread. In WAL mode readers never block the writer nor each other.
final class ReaderPool: @unchecked Sendable {
    // @unchecked: each slot's `connection` is touched only on the slot's queue;
    // shared state is behind a Mutex.

    typealias Job = @Sendable (SQLiteConnection?) -> Void

    private final class Slot: @unchecked Sendable {
        let queue: DispatchQueue
        var connection: SQLiteConnection?
        init(index: Int) {
            queue = DispatchQueue(label: "axiom.storage.reader.\(index)", qos: .userInitiated)
        }
    }

    private struct State {
        var idle: [Int]
        var waiting: [Job] = []
        var closed = false
    }

    private let slots: [Slot]
    private let state: Mutex<State>
    private let configuration: StorageConfiguration

    init(configuration: StorageConfiguration) {
        self.configuration = configuration
        let count = max(1, configuration.readerCount)
        slots = (0..<count).map(Slot.init(index:))
        state = Mutex(State(idle: Array(0..<count)))
    }

    /// Opens every reader connection (the database must exist: the writer
    /// created it and switched it to WAL).
    func open() async throws {
        for slot in slots {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                slot.queue.async { [configuration] in
                    do {
                        let connection = try SQLiteConnection(path: configuration.path, reader: true, configuration: configuration)
                        try connection.exec("PRAGMA query_only=ON;")
                        slot.connection = connection
                        continuation.resume()
                    } catch let error as SQLiteError {
                        continuation.resume(throwing: StorageError.opening(configuration.path, error))
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        }
    }

    /// Runs `job` on an idle reader's queue (now, or when one frees up). The
    /// job gets nil once the pool is closed.
    func submit(_ job: @escaping Job) {
        enum Decision { case run(Int), wait, closed }
        let decision: Decision = state.withLock { state in
            if state.closed { return .closed }
            guard let index = state.idle.popLast() else {
                state.waiting.append(job)
                return .wait
            }
            return .run(index)
        }
        switch decision {
        case .run(let index): run(job, on: index)
        case .wait: break
        case .closed: job(nil)
        }
    }

    func close() async {
        let waiting = state.withLock { state in
            state.closed = true
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        for job in waiting { job(nil) }
        for slot in slots {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                slot.queue.async {
                    slot.connection = nil
                    continuation.resume()
                }
            }
        }
    }

    private func run(_ job: @escaping Job, on index: Int) {
        let slot = slots[index]
        slot.queue.async {
            job(slot.connection)
            // Hand this connection to the next waiter, or mark it idle.
            let next: Job? = self.state.withLock { state in
                if state.waiting.isEmpty {
                    state.idle.append(index)
                    return nil
                }
                return state.waiting.removeFirst()
            }
            if let next { self.run(next, on: index) }
        }
    }
}
