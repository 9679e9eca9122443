import Dispatch
import Synchronization

/// A few read-only connections, each used by one holder at a time: a job on
/// the slot's serial Dispatch queue, or a caller of `runNow` on its own
/// thread. A read takes an idle connection or waits (FIFO) for one; waiting
/// costs no thread. In WAL mode readers never block the writer nor each other.
final class ReaderPool: @unchecked Sendable {
    // @unchecked: a slot's `connection` is touched only by the holder of the
    // slot (taken from and given back to `idle` under the Mutex, which also
    // orders the memory accesses of successive holders); shared state is
    // behind the Mutex.

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

    /// Readers busy and reads waiting, now.
    var usage: ReaderPoolUsage {
        state.withLock { ReaderPoolUsage(size: slots.count, busy: slots.count - $0.idle.count, waiting: $0.waiting.count) }
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

    /// Runs `body` with an idle connection on the calling thread, or returns
    /// nil at once when none is idle (or the pool is closed): for a read so
    /// short (one prepared primary-key probe, about 10 µs with its pages in
    /// the OS's cache) that handing it to a reader's queue and back costs
    /// more than the read (two thread wake-ups; perf on random
    /// `GET /products/{id}` over 1,000,000 products: context switches and
    /// futex wake-ups were a tenth of the server's CPU).
    func runNow<T>(_ body: (SQLiteConnection) throws -> T) rethrows -> T? {
        let index: Int? = state.withLock { state in
            state.closed ? nil : state.idle.popLast()
        }
        guard let index else { return nil }
        defer { release(index) }
        guard let connection = slots[index].connection else { return nil }
        return try body(connection)
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
