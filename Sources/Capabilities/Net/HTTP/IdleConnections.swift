import Synchronization

/// The kept-alive connections no request is using, per origin, newest
/// last. A connection is in here or in one request's hands, never both,
/// so two requests never share one. One idle longer than `idleTimeout` is
/// closed rather than handed out (its server has likely dropped it), and
/// `sweep` closes those nobody asked for.
final class IdleConnections: Sendable {
    private struct Idle {
        let connection: OutboundConnection
        let since: ContinuousClock.Instant
    }

    private struct Pool {
        var byOrigin: [Origin: [Idle]] = [:]
        /// Whether a sweep is scheduled (there are idle connections).
        var sweeping = false
    }

    private let idleTimeout: Duration
    private let maxPerOrigin: Int
    private let pool = Mutex(Pool())

    init(idleTimeout: Duration, maxPerOrigin: Int) {
        self.idleTimeout = idleTimeout
        self.maxPerOrigin = maxPerOrigin
    }

    /// The most recently used connection to `origin` that is not too old.
    func take(_ origin: Origin) -> OutboundConnection? {
        let cutoff = ContinuousClock.now.advanced(by: .zero - idleTimeout)
        let (fresh, stale) = pool.withLock { pool -> (OutboundConnection?, [Idle]) in
            var idle = pool.byOrigin[origin] ?? []
            let stale = idle.filter { $0.since < cutoff }
            idle.removeAll { $0.since < cutoff }
            let fresh = idle.popLast()
            pool.byOrigin[origin] = idle.isEmpty ? nil : idle
            return (fresh?.connection, stale)
        }
        for idle in stale { idle.connection.close() }
        return fresh
    }

    /// Keeps `connection` for the next request to `origin`, or closes it
    /// when that origin has `maxPerOrigin` already. Returns true when the
    /// caller should schedule a sweep (the first idle connection).
    func put(_ connection: OutboundConnection, for origin: Origin) -> Bool {
        let (kept, startSweep) = pool.withLock { pool -> (Bool, Bool) in
            var idle = pool.byOrigin[origin] ?? []
            guard idle.count < maxPerOrigin else { return (false, false) }
            idle.append(Idle(connection: connection, since: .now))
            pool.byOrigin[origin] = idle
            defer { pool.sweeping = true }
            return (true, !pool.sweeping)
        }
        if !kept { connection.close() }
        return startSweep
    }

    /// Closes the connections idle past `idleTimeout`; returns whether any
    /// stay idle (another sweep is due), else ends the sweeping.
    func sweep() -> Bool {
        let cutoff = ContinuousClock.now.advanced(by: .zero - idleTimeout)
        let (stale, more) = pool.withLock { pool -> ([Idle], Bool) in
            var stale: [Idle] = []
            for (origin, idle) in pool.byOrigin {
                stale += idle.filter { $0.since < cutoff }
                let kept = idle.filter { $0.since >= cutoff }
                pool.byOrigin[origin] = kept.isEmpty ? nil : kept
            }
            pool.sweeping = !pool.byOrigin.isEmpty
            return (stale, pool.sweeping)
        }
        for idle in stale { idle.connection.close() }
        return more
    }

    /// Closes every idle connection.
    func closeAll() {
        let all = pool.withLock { pool -> [Idle] in
            defer { pool.byOrigin = [:] }
            return pool.byOrigin.values.flatMap { $0 }
        }
        for idle in all { idle.connection.close() }
    }
}
