import CLibPQ
import Dispatch
import Glibc
import Synchronization

/// `LISTEN axiom_changes` on a connection of its own (not the pool's: a
/// pooled connection is shared by transactions, and PgBouncer's transaction
/// pooling would drop the registration), on its own Dispatch queue, waiting
/// in `poll(2)` on libpq's socket. A notification, and every (re)connect,
/// calls `onWake`: after a drop the follower reads what passed meanwhile.
final class PostgresChangeListener: @unchecked Sendable {
    // @unchecked: `connection` is confined to `queue`; the rest is immutable
    // or behind a Mutex.
    private let url: String
    private let channel: String
    private let onWake: @Sendable () -> Void
    private let queue = DispatchQueue(label: "axiom.changefeed.listener", qos: .userInitiated)
    private let stopping = Atomic<Bool>(false)
    private let stopped = Mutex<CheckedContinuation<Void, Never>?>(nil)
    private let backend = Atomic<Int32>(0)
    private var connection: OpaquePointer?

    private let connectionCount = Atomic<Int>(0)

    init(url: String, channel: String, onWake: @escaping @Sendable () -> Void) {
        self.url = url
        self.channel = channel
        self.onWake = onWake
    }

    /// Connections made: 1, plus one per reconnect after a drop.
    var connections: Int { connectionCount.load(ordering: .relaxed) }

    /// The listening connection's server process id (0 while disconnected),
    /// so a test can terminate it.
    var backendPID: Int32 { backend.load(ordering: .relaxed) }

    func start() {
        queue.async { self.run() }
    }

    func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            stopped.withLock { $0 = continuation }
            stopping.store(true, ordering: .releasing)
        }
    }

    // MARK: - Queue only

    private func run() {
        while !stopping.load(ordering: .acquiring) {
            guard let connection = connected() else {
                // PostgreSQL away: try again shortly (the follower's slow
                // poll keeps failing meanwhile and counts it).
                usleep(200_000)
                continue
            }
            var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
            // 200 ms bounds how long `stop` waits; a notification ends the wait at once.
            guard poll(&descriptor, 1, 200) > 0 else { continue }
            guard PQconsumeInput(connection) == 1 else {
                disconnect()
                continue
            }
            var notified = false
            while let notification = PQnotifies(connection) {
                PQfreemem(notification)
                notified = true
            }
            if notified { onWake() }
        }
        disconnect()
        stopped.withLock { $0?.resume(); $0 = nil }
    }

    private func connected() -> OpaquePointer? {
        if let connection, PQstatus(connection) == CONNECTION_OK { return connection }
        disconnect()
        guard let fresh = PQconnectdb(url) else { return nil }
        // Its notices (e.g. FATAL on termination) are not for stderr.
        PQsetNoticeProcessor(fresh, { _, _ in }, nil)
        guard PQstatus(fresh) == CONNECTION_OK, let result = PQexec(fresh, "LISTEN \(channel)") else {
            PQfinish(fresh)
            return nil
        }
        let listening = PQresultStatus(result) == PGRES_COMMAND_OK
        PQclear(result)
        guard listening else {
            PQfinish(fresh)
            return nil
        }
        connection = fresh
        backend.store(PQbackendPID(fresh), ordering: .relaxed)
        connectionCount.add(1, ordering: .relaxed)
        // Whatever committed while nobody listened is read now.
        onWake()
        return fresh
    }

    private func disconnect() {
        if let connection { PQfinish(connection) }
        connection = nil
        backend.store(0, ordering: .relaxed)
    }
}
