import CSystemShims
import Glibc
import Synchronization

/// One event loop: a thread of its own blocked in `epoll_wait` on its own
/// epoll instance, owning the connections dealt to it. Readiness is
/// harvested in batches (up to 256 events a wake-up); reads, parsing,
/// handlers that finish without suspending, and writes all run on this
/// thread. Work from other threads (a handler resuming, the acceptor
/// handing over a connection, shutdown) arrives through `execute`, which
/// wakes the loop with its eventfd.
///
/// A thread of our own rather than a Dispatch read source on the epoll
/// descriptor: a source hands every wake-up from libdispatch's manager
/// thread to a worker (a futex wake, then epoll_ctl to re-arm), system
/// calls on every request (docs/http-engine.md).
/// Sockets are registered once, edge-triggered for input and output, so a
/// request costs no epoll_ctl.
///
/// Responses made while the loop works through a batch (the ready sockets
/// of one `epoll_wait`, or the jobs queued since the last) are written
/// together when the batch ends (`flushAfterBatch`), not one by one as
/// each is made: every `sendmsg` that finds its client asleep wakes it, and
/// on cores the client shares, the woken client preempts the loop, so
/// writing each as it is made pays a context switch in and out for nearly
/// every response. Written back to back, most find the client already awake.
final class EventLoop: @unchecked Sendable {
    typealias Job = @Sendable () -> Void

    /// This loop's place among its server's loops (0 up), reported with
    /// each exchange so observers can keep state per loop.
    let index: Int

    private let epollFD: Int32
    private let wakeFD: Int32
    private let jobs = Mutex<[Job]>([])
    /// The batch `runJobs` is running; only the loop's thread touches it.
    private var runningJobs: [Job] = []
    private let wakePending = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    private let threadID = Atomic<UInt>(0)
    private var thread: pthread_t?
    /// Touched on the loop thread only.
    private var connections: [Int32: HTTPConnection] = [:]
    /// Connections with output to write when the batch ends; loop thread only.
    private var flushes: [HTTPConnection] = []
    private var flushing: [HTTPConnection] = []
    /// Whether the loop is working through a batch; loop thread only.
    private(set) var inBatch = false
    private let sweepInterval: Int64 = 250_000_000
    /// Trace and span ids for this loop's exchanges; loop thread only.
    var traceIDs = TraceIDSource()
    /// This loop's leases on the server's per-address rate limiter, so its
    /// requests take no shared lock; loop thread only.
    var rateLeases: TokenLeases?

    init(index: Int = 0, rateLimiter: RateLimiter? = nil) throws {
        self.index = index
        rateLeases = rateLimiter.map { TokenLeases(limiter: $0) }
        epollFD = axiom_epoll_create()
        guard epollFD >= 0 else { throw SocketError("epoll_create1") }
        wakeFD = axiom_eventfd()
        guard wakeFD >= 0 else {
            let error = SocketError("eventfd")
            Glibc.close(epollFD)
            throw error
        }
        _ = axiom_epoll_watch(epollFD, wakeFD, 0)
    }

    /// The descriptors go with the last reference: the thread holds one
    /// until it returns, and a loop never started (a later one failed to
    /// open) still gives them back.
    deinit {
        Glibc.close(wakeFD)
        Glibc.close(epollFD)
    }

    /// Whether the caller runs on this loop's thread.
    var inEventLoop: Bool { threadID.load(ordering: .relaxed) == UInt(pthread_self()) }

    /// Runs `job` on the loop, after what is already queued. From another
    /// thread this wakes the loop (once, however many jobs arrive before it
    /// looks).
    func execute(_ job: @escaping Job) {
        jobs.withLock { $0.append(job) }
        guard !inEventLoop, !wakePending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    /// Starts the loop's thread.
    func start() {
        let box = Unmanaged.passRetained(self).toOpaque()
        var id = pthread_t()
        pthread_create(&id, nil, { argument in
            let loop = Unmanaged<EventLoop>.fromOpaque(argument!).takeRetainedValue()
            loop.run()
            return nil
        }, box)
        thread = id
    }

    /// Ends the loop once its connections are gone and waits for its thread.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        execute {}
        if let thread, !inEventLoop { pthread_join(thread, nil) }
        thread = nil
    }

    // MARK: Connections (loop thread only)

    /// Watches `connection`'s socket: edge-triggered input and output,
    /// registered once for the connection's life.
    func register(_ connection: HTTPConnection) {
        connections[connection.fd] = connection
        _ = axiom_epoll_watch(epollFD, connection.fd, 1)
    }

    /// Forgets `fd`; closing it removes it from the epoll set.
    func deregister(_ fd: Int32) {
        connections.removeValue(forKey: fd)
    }

    // MARK: The loop

    private func run() {
        threadID.store(UInt(pthread_self()), ordering: .relaxed)
        let capacity = 256
        let events = UnsafeMutablePointer<axiom_readiness>.allocate(capacity: capacity)
        defer { events.deallocate() }
        var nextSweep = MonotonicClock.nowNanoseconds() + sweepInterval
        while true {
            inBatch = true
            let more = runJobs()
            flushBatch()
            if stopping.load(ordering: .relaxed) && connections.isEmpty && !more { break }
            var timeout: Int32 = 0
            if !more {
                let wait = nextSweep - MonotonicClock.nowNanoseconds()
                timeout = wait <= 0 ? 0 : Int32(wait / 1_000_000) + 1
            }
            let count = axiom_epoll_wait(epollFD, events, Int32(capacity), timeout)
            inBatch = true
            for index in 0..<max(0, Int(count)) {
                let ready = events[index]
                let fd = ready.fd
                if fd == wakeFD {
                    var value: UInt64 = 0
                    _ = read(wakeFD, &value, 8)
                    wakePending.store(false, ordering: .releasing)
                    continue
                }
                // A connection closed earlier in this batch is gone.
                guard let connection = connections[fd] else { continue }
                if ready.writable != 0 { connection.writable() }
                if ready.readable != 0 { connection.readable(hungUp: ready.hung_up != 0) }
            }
            flushBatch()
            let now = MonotonicClock.nowNanoseconds()
            if now >= nextSweep {
                nextSweep = now + sweepInterval
                sweep(now: now)
            }
        }
    }

    /// Writes `connection`'s output when the batch ends; the caller keeps
    /// it from being queued twice (`HTTPConnection.flushAfterBatch`).
    func flushAfterBatch(_ connection: HTTPConnection) {
        flushes.append(connection)
    }

    /// Ends the batch: the output queued during it goes out.
    private func flushBatch() {
        inBatch = false
        guard !flushes.isEmpty else { return }
        swap(&flushes, &flushing)
        for connection in flushing { connection.batchEnded() }
        flushing.removeAll(keepingCapacity: true)
    }

    /// Runs the jobs queued so far (not those they queue); returns whether
    /// more are waiting.
    private func runJobs() -> Bool {
        // Swapped with the loop's own array, not copied: `removeAll(keepingCapacity:)`
        // on an array a copy still shares allocates a new buffer for
        // every batch.
        jobs.withLock { swap(&$0, &runningJobs) }
        for job in runningJobs { job() }
        runningJobs.removeAll(keepingCapacity: true)
        return jobs.withLock { !$0.isEmpty }
    }

    /// One timer per loop: every 250 ms, each connection whose deadline
    /// has passed is told so, and expired rate-limit leases go back.
    private func sweep(now: Int64) {
        rateLeases?.returnExpired(now: now)
        for connection in connections.values where connection.machine.deadline != 0 {
            if now >= connection.machine.deadline { connection.timerFired(now: now) }
        }
    }
}
