import Dispatch
import Synchronization
import Testing
@testable import Capabilities

/// The queueing half of both group-commit writers, without a database: the
/// batches `run` is handed, their order, refusal after close, requeueing,
/// and what is rejected while storage is unavailable.
@Suite struct GroupCommitQueueTests {
    struct Write: GroupCommitRequest {
        let id: Int
        let isProbe: Bool
        let fail: @Sendable (any Error) -> Void
    }

    /// What happened to the writes: the batches run and the test's own
    /// markers on the writer queue, in order; the failures with their
    /// errors; the batches run before close's `finish`.
    final class Record: Sendable {
        enum Event: Equatable {
            case batch([Int])
            case marker(String)
        }
        private struct State {
            var events: [Event] = []
            var failures: [(id: Int, error: any Error)] = []
            var finishedAfter: [[Int]]?
        }
        private let state = Mutex(State())

        var events: [Event] { state.withLock { $0.events } }
        var batches: [[Int]] { events.compactMap { if case .batch(let ids) = $0 { ids } else { nil } } }
        var failures: [(id: Int, error: any Error)] { state.withLock { $0.failures } }
        var finishedAfter: [[Int]]? { state.withLock { $0.finishedAfter } }

        func ran(_ batch: [Write]) { state.withLock { $0.events.append(.batch(batch.map(\.id))) } }

        func mark(_ name: String) { state.withLock { $0.events.append(.marker(name)) } }

        func finished() {
            let done = batches
            state.withLock { $0.finishedAfter = done }
        }

        func write(_ id: Int, probe: Bool = false) -> Write {
            Write(id: id, isProbe: probe, fail: { error in self.state.withLock { $0.failures.append((id, error)) } })
        }
    }

    private static func queue(maxBatchSize: Int, health: StorageHealth = StorageHealth()) -> GroupCommitQueue<Write> {
        GroupCommitQueue(label: "axiom.test.group-commit-queue", maxBatchSize: maxBatchSize, health: health)
    }

    /// Parks the writer queue until the returned semaphore is signalled, so
    /// that submitted requests pile up behind it.
    private static func park(_ queue: GroupCommitQueue<Write>) -> DispatchSemaphore {
        let parked = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        queue.writerQueue.async {
            parked.signal()
            release.wait()
        }
        parked.wait()
        return release
    }

    /// Waits for `semaphore`; the 30 s are a hang guard only.
    private static func waited(for semaphore: DispatchSemaphore) -> Bool {
        semaphore.wait(timeout: .now() + 30) == .success
    }

    /// Returns once every block queued on the writer queue so far has run.
    private static func settle(_ queue: GroupCommitQueue<Write>) {
        queue.writerQueue.sync {}
    }

    @Test func batchesHoldAtMostMaxBatchSizeInSubmissionOrder() async {
        let record = Record()
        let queue = Self.queue(maxBatchSize: 3)
        let release = Self.park(queue)
        for id in 0..<8 { queue.submit(record.write(id), running: record.ran) }
        #expect(queue.pendingCount == 8)
        release.signal()
        await queue.close(running: record.ran, then: {})
        #expect(record.batches == [[0, 1, 2], [3, 4, 5], [6, 7]])
        #expect(record.failures.isEmpty)
    }

    @Test func aBatchSizeBelowOneMeansBatchesOfOne() async {
        let record = Record()
        let queue = Self.queue(maxBatchSize: 0)
        let release = Self.park(queue)
        for id in 0..<3 { queue.submit(record.write(id), running: record.ran) }
        release.signal()
        await queue.close(running: record.ran, then: {})
        #expect(record.batches == [[0], [1], [2]])
    }

    @Test func requeuedRequestsRunNextAheadOfTheOthers() async {
        let record = Record()
        let queue = Self.queue(maxBatchSize: 3)
        // The first batch gives back its last two, as the SQLite writer does
        // when SQLite rolled the transaction back under them.
        let run: @Sendable ([Write]) -> Void = { batch in
            record.ran(batch)
            if record.batches.count == 1 { queue.requeue(Array(batch.dropFirst())) }
        }
        let release = Self.park(queue)
        for id in 0..<6 { queue.submit(record.write(id), running: run) }
        release.signal()
        await queue.close(running: run, then: {})
        #expect(record.batches == [[0, 1, 2], [1, 2, 3], [4, 5]])
    }

    @Test func closeRunsTheQueuedRequestsThenFinishesThenRefuses() async {
        let record = Record()
        let queue = Self.queue(maxBatchSize: 10)
        let release = Self.park(queue)
        for id in 0..<4 { queue.submit(record.write(id), running: record.ran) }
        let closing = Task {
            await queue.close(running: record.ran, then: record.finished)
        }
        release.signal()
        await closing.value
        #expect(record.finishedAfter == [[0, 1, 2, 3]])

        let health = StorageHealth()
        let closed = Self.queue(maxBatchSize: 10, health: health)
        await closed.close(running: record.ran, then: {})
        closed.submit(record.write(9), running: record.ran)
        Self.settle(closed)
        #expect(closed.pendingCount == 0)
        #expect(record.batches == [[0, 1, 2, 3]])
        let failures = record.failures
        #expect(failures.map(\.id) == [9])
        if case StorageError.closed? = failures.first?.error {} else {
            Issue.record("expected StorageError.closed, got \(String(describing: failures.first?.error))")
        }
        // A refusal after close is not a failed write: nothing was counted before either.
        #expect(health.metrics.writesFailed == 0)
        #expect(health.metrics.writesRejectedUnavailable == 0)
    }

    @Test func requestsSubmittedWhileABatchRunsWaitAndFormTheNextBatch() async {
        let record = Record()
        let queue = Self.queue(maxBatchSize: 10)
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let run: @Sendable ([Write]) -> Void = { batch in
            record.ran(batch)
            if batch.map(\.id) == [0] {
                entered.signal()
                proceed.wait()
            }
        }
        queue.submit(record.write(0), running: run)
        #expect(Self.waited(for: entered))
        for id in 1...3 { queue.submit(record.write(id), running: run) }
        // Not run beside the running batch, nor on the submitting thread.
        #expect(queue.pendingCount == 3)
        #expect(record.batches == [[0]])
        proceed.signal()
        await queue.close(running: run, then: {})
        #expect(record.batches == [[0], [1, 2, 3]])
    }

    /// A second drain would be invisible on the serial queue, unless a
    /// request arrives between the first drain's end and the second's start:
    /// the second then runs it ahead of blocks queued before it was submitted.
    @Test func aSubmitWhileADrainRunsStartsNoOther() {
        let record = Record()
        let queue = Self.queue(maxBatchSize: 10)
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let ranLate = DispatchSemaphore(value: 0)
        let run: @Sendable ([Write]) -> Void = { batch in
            record.ran(batch)
            switch batch.map(\.id) {
            case [0]:
                entered.signal()
                proceed.wait()
            case [9]:
                ranLate.signal()
            default:
                break
            }
        }
        queue.submit(record.write(0), running: run)
        #expect(Self.waited(for: entered))
        // Runs once the drain has ended: its submit starts a new drain,
        // queued after "after".
        queue.writerQueue.async {
            record.mark("late submit")
            queue.submit(record.write(9), running: run)
        }
        queue.submit(record.write(1), running: run)
        queue.writerQueue.async { record.mark("after") }
        proceed.signal()
        #expect(Self.waited(for: ranLate))
        #expect(record.events == [.batch([0]), .batch([1]), .marker("late submit"), .marker("after"), .batch([9])])
    }

    @Test func aSubmitAfterTheDrainEndedStartsAnother() {
        let record = Record()
        let queue = Self.queue(maxBatchSize: 10)
        let ran = DispatchSemaphore(value: 0)
        let run: @Sendable ([Write]) -> Void = { batch in
            record.ran(batch)
            ran.signal()
        }
        queue.submit(record.write(0), running: run)
        #expect(Self.waited(for: ran))
        Self.settle(queue)
        queue.submit(record.write(1), running: run)
        #expect(Self.waited(for: ran))
        #expect(record.batches == [[0], [1]])
    }

    @Test func whileUnavailableOnlyProbesAreAdmitted() {
        let record = Record()
        let health = StorageHealth()
        let queue = Self.queue(maxBatchSize: 10, health: health)
        let batch = [record.write(0), record.write(1, probe: true), record.write(2), record.write(3, probe: true)]
        #expect(queue.admitted(batch).map(\.id) == [0, 1, 2, 3])
        #expect(record.failures.isEmpty)

        health.markUnavailable(reason: "disk gone", sqlite: nil)
        #expect(queue.admitted(batch).map(\.id) == [1, 3])
        let failures = record.failures
        #expect(failures.map(\.id) == [0, 2])
        for failure in failures {
            #expect((failure.error as? StorageError)?.isUnavailable == true)
        }
        #expect(health.metrics.writesRejectedUnavailable == 2)
        #expect(health.metrics.writesFailed == 0)
    }

    @Test func rejectCountsUnavailableApartFromFailed() {
        let record = Record()
        let health = StorageHealth()
        let queue = Self.queue(maxBatchSize: 10, health: health)
        queue.reject([record.write(0), record.write(1)], with: .closed)
        queue.reject([record.write(2)], with: .unavailable(reason: "disk gone", sqlite: nil))
        #expect(record.failures.map(\.id) == [0, 1, 2])
        #expect(health.metrics.writesFailed == 2)
        #expect(health.metrics.writesRejectedUnavailable == 1)
    }
}
