import Dispatch
import Synchronization

/// The queueing half of a group-commit writer (`GroupCommitWriter` for
/// SQLite, `PostgresGroupCommitWriter` for PostgreSQL): the requests waiting
/// for the writer connection and the serial Dispatch queue it lives on.
///
/// `submit` appends a request and, when no drain is running, starts one on
/// the writer queue. A drain hands the writer's `run` batch after batch, in
/// submission order, each of at most `maxBatchSize` requests, until nothing
/// waits. Batching is not timed: requests that arrive while a batch runs
/// form the next one, so the batch size follows the load by itself.
/// The transaction itself (savepoints, retries, commit) is the writer's.
final class GroupCommitQueue<Request: GroupCommitRequest>: Sendable {
    private struct Pending {
        var requests: [Request] = []
        var draining = false
        var closed = false
    }

    /// The writer's serial queue: its connection is confined to it, and
    /// every batch runs on it.
    let writerQueue: DispatchQueue
    private let pending = Mutex(Pending())
    private let maxBatchSize: Int
    private let health: StorageHealth

    /// `maxBatchSize` below 1 means batches of one.
    init(label: String, maxBatchSize: Int, health: StorageHealth) {
        self.writerQueue = DispatchQueue(label: label, qos: .userInitiated)
        self.maxBatchSize = max(1, maxBatchSize)
        self.health = health
    }

    /// Queues `request`; starts a drain through `run` on the writer queue if
    /// none is running (a running drain takes it into a later batch). After
    /// `close`, fails it with `StorageError.closed` instead.
    func submit(_ request: Request, running run: @escaping @Sendable ([Request]) -> Void) {
        let startDrain: Bool? = pending.withLock { state in
            if state.closed { return nil }
            state.requests.append(request)
            if state.draining { return false }
            state.draining = true
            return true
        }
        switch startDrain {
        case .none: request.fail(StorageError.closed)
        case .some(true): writerQueue.async { self.drain(run) }
        case .some(false): break
        }
    }

    /// Runs `body` on the writer queue (opening the writer's connection)
    /// and returns once it has.
    func onWriterQueue(_ body: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            writerQueue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Refuses new requests, drains the queued ones through `run` on the
    /// writer queue, then calls `finish` there (the writer drops its
    /// connection).
    func close(running run: @escaping @Sendable ([Request]) -> Void,
               then finish: @escaping @Sendable () -> Void) async {
        pending.withLock { $0.closed = true }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            writerQueue.async {
                self.drain(run)
                finish()
                continuation.resume()
            }
        }
    }

    /// Requests queued and not yet taken into a batch.
    var pendingCount: Int { pending.withLock { $0.requests.count } }

    /// Requests queued, plus one while a batch runs: 0 means idle.
    var load: Int { pending.withLock { $0.requests.count + ($0.draining ? 1 : 0) } }

    // MARK: - Writer queue only

    /// Puts `requests` back at the head of the queue (a batch was lost through
    /// no fault of theirs); the running drain loop picks them up next.
    func requeue(_ requests: [Request]) {
        guard !requests.isEmpty else { return }
        pending.withLock { $0.requests.insert(contentsOf: requests, at: 0) }
    }

    /// The part of `batch` that may run now: all of it, or while storage is
    /// marked unavailable only its probes (the others are rejected with the
    /// unavailable error). Empty when nothing is left to run.
    func admitted(_ batch: [Request]) -> [Request] {
        guard let unavailable = health.unavailableError else { return batch }
        reject(batch.filter { !$0.isProbe }, with: unavailable)
        return batch.filter(\.isProbe)
    }

    /// Fails `requests` with `error`, counted as rejected for unavailability
    /// when `error` says storage is unavailable, else as failed writes.
    func reject(_ requests: [Request], with error: StorageError) {
        health.updateMetrics { m in
            if error.isUnavailable { m.writesRejectedUnavailable += requests.count } else { m.writesFailed += requests.count }
        }
        for request in requests { request.fail(error) }
    }

    private func drain(_ run: ([Request]) -> Void) {
        while let batch = nextBatch() { run(batch) }
    }

    private func nextBatch() -> [Request]? {
        pending.withLock { state in
            if state.requests.isEmpty {
                state.draining = false
                return nil
            }
            let count = min(maxBatchSize, state.requests.count)
            let batch = Array(state.requests.prefix(count))
            state.requests.removeFirst(count)
            return batch
        }
    }
}
