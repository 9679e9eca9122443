import Axiom
import Glibc
import Synchronization

/// The follower (one per process): reads the `changes` outbox after the
/// last position it applied, up to the horizon below which no row can still
/// appear (`ChangeOutbox`), and hands other processes' rows to the
/// subscribed clients in position order, each awaited before the next.
/// While committed rows wait above the horizon (an older transaction is
/// still open somewhere), it reads again soon, backing off to the poll.
/// Woken by `NOTIFY` on PostgreSQL (`ChangeFeedSettings.Wake.notify`,
/// `PostgresChangeListener`), by a timer otherwise, and by read barriers.
///
/// It starts at the horizon: a process that just started has nothing
/// cached, so nothing older concerns it. A follower that finds its position
/// pruned asks every subscriber to `resynchronize` (drop its cache) and
/// goes on from the horizon.
///
/// ## Read barrier (`replica_coherence: strict`)
/// `barrier()` learns the head (one `SharedHeadRead` for every request in
/// flight) and returns once the follower has applied up to it: everything
/// acknowledged by any replica before the barrier began is then in this
/// process's working sets, without waiting for NOTIFY or the poll.
public final class ChangeFeed: Capability {
    public let settings: ChangeFeedSettings
    public let origin: String
    private let storage: StorageAccess
    private let state = Mutex(State())
    private let signals: AsyncStream<Void>
    private let signal: AsyncStream<Void>.Continuation
    private let heads: SharedHeadRead
    private let listener: PostgresChangeListener?

    private struct Waiter {
        let target: Int64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var subscribers: [any ChangeSubscriber] = []
        var running = false
        var tasks: [Task<Void, Never>] = []
        var metrics = ChangeFeedMetrics()
        var waiters: [Waiter] = []
        var lastPrune: ContinuousClock.Instant?
        var cursor = ChangeOutbox.Cursor(position: 0, seq: 0)
        /// The wait before the next read while rows are held above the horizon.
        var heldRetry: Duration?
    }

    /// Every hour at most, each follower deletes rows older than retention.
    static let pruneEvery: Duration = .seconds(3600)
    /// Rows one pruning write deletes at most (see `ChangeOutbox.prune`).
    static let pruneStep = 2_000

    public init(storage: StorageAccess, settings: ChangeFeedSettings = ChangeFeedSettings()) {
        self.storage = storage
        self.settings = settings
        origin = storage.changeOrigin
        (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        heads = SharedHeadRead { [storage] in try await storage.storedRead(ChangeOutbox.head) }
        if settings.wake == .notify, let url = storage.postgresURL {
            let signal = self.signal
            listener = PostgresChangeListener(url: url, channel: ChangeOutbox.channel, onWake: { signal.yield(()) })
        } else {
            listener = nil
        }
    }

    /// Never unavailable itself: a failed outbox read is retried on the next
    /// wake, and read barriers fail with the storage's error meanwhile.
    public var isAvailable: Bool { true }

    public func checkAvailability() async -> Bool { true }

    /// Whether NOTIFY wakes this follower (PostgreSQL and `notify`).
    public var isListening: Bool { listener != nil }

    public var metrics: ChangeFeedMetrics {
        var metrics = state.withLock { $0.metrics }
        metrics.listenerConnections = listener?.connections ?? 0
        metrics.headReads = heads.reads
        return metrics
    }

    /// The listening connection's server pid (0 if none), for tests that cut it.
    public var listenerBackendPID: Int32 { listener?.backendPID ?? 0 }

    /// Adds a subscriber; call before `start`.
    public func subscribe(_ subscriber: any ChangeSubscriber) {
        state.withLock { $0.subscribers.append(subscriber) }
    }

    /// Reads the horizon and starts following from it.
    public func start() async throws {
        let horizon = try await storage.storedRead(ChangeOutbox.horizon)
        let interval = listener == nil ? settings.pollInterval : settings.pollInterval * 10
        let signal = self.signal
        let follow = Task { [self] in
            for await _ in signals {
                if Task.isCancelled { return }
                await drain()
            }
        }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                signal.yield(())
            }
        }
        state.withLock { state in
            state.cursor = ChangeOutbox.Cursor(position: horizon - 1, seq: .max)
            state.metrics.appliedSequence = horizon - 1
            state.metrics.headSequence = horizon - 1
            state.running = true
            state.tasks = [follow, ticker]
        }
        listener?.start()
    }

    /// Stops following; a second call does nothing.
    public func stop() async {
        let tasks = state.withLock { state -> [Task<Void, Never>]? in
            guard state.running else { return nil }
            state.running = false
            defer { state.tasks = [] }
            return state.tasks
        }
        guard let tasks else { return }
        await listener?.stop()
        signal.finish()
        for task in tasks {
            task.cancel()
            await task.value
        }
        failWaiters(StorageError.closed)
    }

    /// Returns once this process has applied every change committed before
    /// the call (see the type's notes). Throws when the outbox cannot be read.
    public func barrier() async throws {
        guard state.withLock({ $0.running }) else { return }
        let target = try await heads.current()
        if state.withLock({ $0.metrics.appliedSequence >= target }) { return }
        signal.yield(())
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let reached = state.withLock { state -> Bool in
                if state.metrics.appliedSequence >= target { return true }
                state.metrics.barrierWaits += 1
                state.waiters.append(Waiter(target: target, continuation: continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    /// The newest position applied here: what a new `/events` stream starts after.
    public var appliedSequence: Int64 { state.withLock { $0.metrics.appliedSequence } }

    // MARK: - Following

    private func drain() async {
        let batchSize = settings.batchSize
        while true {
            let cursor = state.withLock { $0.cursor }
            let read: ChangeOutbox.Read
            do {
                read = try await storage.storedRead { try ChangeOutbox.read($0, after: cursor, limit: batchSize) }
            } catch {
                state.withLock { $0.metrics.failedReads += 1 }
                failWaiters(error)
                return
            }
            let subscribers = state.withLock { state in
                state.metrics.headSequence = max(state.metrics.headSequence, read.head)
                state.metrics.heldBack = read.heldBack
                return state.subscribers
            }
            if cursor.position > 0, cursor.position < read.resumableAfter {
                // Rows after our position were pruned: what they said is lost.
                for subscriber in subscribers { await subscriber.resynchronize() }
                state.withLock { $0.metrics.resynchronizations += 1 }
                advance(to: ChangeOutbox.Cursor(position: read.horizon - 1, seq: .max))
                return
            }
            for change in read.rows {
                if change.origin != origin {
                    for subscriber in subscribers where subscriber.changeKinds.contains(change.kind) {
                        await subscriber.apply(change)
                    }
                    state.withLock { $0.metrics.appliedChanges += 1 }
                }
                advance(to: ChangeOutbox.Cursor(position: change.sequence, seq: change.row))
            }
            guard read.rows.count == batchSize else {
                // Everything below the horizon is read (holes left by
                // rolled-back batches included).
                advance(to: ChangeOutbox.Cursor(position: read.horizon - 1, seq: .max))
                retryWhileHeld(read.heldBack)
                await pruneIfDue()
                return
            }
        }
    }

    /// Moves the cursor; every position before it is applied, and before
    /// a whole read's horizon, the position itself too.
    private func advance(to cursor: ChangeOutbox.Cursor) {
        let applied = cursor.seq == .max ? cursor.position : cursor.position - 1
        let due = state.withLock { state -> [Waiter] in
            guard (cursor.position, cursor.seq) > (state.cursor.position, state.cursor.seq) else { return [] }
            state.cursor = cursor
            guard applied > state.metrics.appliedSequence else { return [] }
            state.metrics.appliedSequence = applied
            let due = state.waiters.filter { $0.target <= applied }
            state.waiters.removeAll { $0.target <= applied }
            return due
        }
        for waiter in due { waiter.continuation.resume() }
    }

    /// Reads again soon while committed rows wait above the horizon: from
    /// a millisecond, doubling to the poll interval.
    private func retryWhileHeld(_ heldBack: Int) {
        let wait = state.withLock { state -> Duration? in
            guard heldBack > 0 else {
                state.heldRetry = nil
                return nil
            }
            let wait = min(state.heldRetry.map { $0 * 2 } ?? .milliseconds(1), settings.pollInterval)
            state.heldRetry = wait
            return wait
        }
        guard let wait else { return }
        let signal = self.signal
        Task {
            try? await Task.sleep(for: wait)
            signal.yield(())
        }
    }

    private func failWaiters(_ error: any Error) {
        let waiting = state.withLock { state in
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiting { waiter.continuation.resume(throwing: error) }
    }

    private func pruneIfDue() async {
        let now = ContinuousClock.now
        let due = state.withLock { state -> Bool in
            if let last = state.lastPrune, now - last < Self.pruneEvery { return false }
            state.lastPrune = now
            return true
        }
        guard due else { return }
        let cutoff = Int64(time(nil)) - settings.retentionSeconds
        while let pruned = try? await storage.durableWrite({
            try ChangeOutbox.prune($0, recordedBefore: cutoff, limit: Self.pruneStep)
        }), pruned == Self.pruneStep {}
    }
}
