import Dispatch
import Synchronization

/// A bounded set of read connections, each confined to its own serial
/// Dispatch queue and connected lazily on first use. A connection that
/// broke is dropped and the next read on its slot connects again, so reads
/// recover by themselves once the server is back. A read waits (FIFO, no
/// thread held) when every slot is busy.
final class PostgresReaderPool: @unchecked Sendable {
    // @unchecked: each slot's `connection` is touched only on the slot's
    // queue; shared state is behind a Mutex.

    typealias Job = @Sendable (Slot?) -> Void

    final class Slot: @unchecked Sendable {
        let queue: DispatchQueue
        private var connection: PostgresConnection?
        private let configuration: PostgresConfiguration

        init(index: Int, configuration: PostgresConfiguration) {
            queue = DispatchQueue(label: "axiom.storage.postgres.reader.\(index)", qos: .userInitiated)
            self.configuration = configuration
        }

        /// The slot's connection, connecting when there is none or it broke. On `queue` only.
        func connected() throws -> PostgresConnection {
            if let connection, connection.isHealthy { return connection }
            connection = nil
            let fresh = try PostgresConnection(url: configuration.url,
                                               statementCacheCapacity: configuration.statementCacheCapacity)
            connection = fresh
            return fresh
        }

        func disconnect() { connection = nil }
    }

    private struct State {
        var idle: [Int]
        var waiting: [Job] = []
        var closed = false
    }

    private let slots: [Slot]
    private let state: Mutex<State>

    init(configuration: PostgresConfiguration) {
        let count = max(1, configuration.readerCount)
        slots = (0..<count).map { Slot(index: $0, configuration: configuration) }
        state = Mutex(State(idle: Array(0..<count)))
    }

    /// Readers busy and reads waiting, now.
    var usage: ReaderPoolUsage {
        state.withLock { ReaderPoolUsage(size: slots.count, busy: slots.count - $0.idle.count, waiting: $0.waiting.count) }
    }

    /// Runs `job` on an idle slot's queue (now, or when one frees up); nil once closed.
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
                    slot.disconnect()
                    continuation.resume()
                }
            }
        }
    }

    private func run(_ job: @escaping Job, on index: Int) {
        let slot = slots[index]
        slot.queue.async {
            job(slot)
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
