import Sharding
import Synchronization

/// Maps each session to one root context of type `Root`: created on first
/// use through the orchestrator's factory, released on logout (`end`), after
/// `idleTimeout` without use, or, when `maxSessions` are live and a new one
/// arrives, by evicting the session idle for longest (sessions busy with a
/// request are never evicted). Releasing a session releases its context
/// subtree in the DAG, which stops its observations.
public final class SessionRegistry<Root: Context>: Sendable {
    public struct Configuration: Sendable {
        public var idleTimeout: Duration
        public var maxSessions: Int
        /// Locks the table is split into (each with its share of
        /// `maxSessions`). By default 16 once each can hold 1,024 sessions,
        /// so the shards' separate evictions stay close to one global one;
        /// else 1, where eviction is exact.
        public var shards: Int

        public init(idleTimeout: Duration, maxSessions: Int, shards: Int? = nil) {
            precondition(maxSessions > 0, "maxSessions must be positive")
            self.idleTimeout = idleTimeout
            self.maxSessions = maxSessions
            self.shards = max(1, min(shards ?? (maxSessions >= 16 * 1_024 ? 16 : 1), maxSessions))
        }
    }

    /// Why a session was released.
    public enum Release: String, Sendable, Codable {
        case ended, expired, evicted
    }

    public struct Statistics: Sendable, Codable, Equatable {
        public var live: Int
        public var created: Int
        public var ended: Int
        public var expired: Int
        public var evicted: Int
    }

    private enum Slot {
        case pending(Task<Root, any Error>)
        case ready(Root)
    }

    /// A session's entry, also a link of the recency list. A class, so a
    /// request finds its entry with one hash of the session id and moves it
    /// with pointer updates (as a struct in the dictionary every link and
    /// field update would hash the id again).
    /// Only touched under the table's lock.
    private final class Entry {
        let id: SessionID
        var slot: Slot
        var lastUsed: Duration
        var busy: Int
        let serial: UInt64
        var older: Entry?
        var newer: Entry?

        init(id: SessionID, slot: Slot, lastUsed: Duration, busy: Int, serial: UInt64) {
            self.id = id
            self.slot = slot
            self.lastUsed = lastUsed
            self.busy = busy
            self.serial = serial
        }
    }

    /// Entries plus a recency list (oldest → newest use), so expiry and
    /// eviction start at the oldest entry in O(1). The list holds strong
    /// references both ways; `remove` unlinks, which breaks them.
    private struct Table {
        var entries: [SessionID: Entry] = [:]
        var oldest: Entry?
        var newest: Entry?
        var nextSerial: UInt64 = 0
        var statistics = Statistics(live: 0, created: 0, ended: 0, expired: 0, evicted: 0)

        mutating func unlink(_ entry: Entry) {
            if let older = entry.older { older.newer = entry.newer } else { oldest = entry.newer }
            if let newer = entry.newer { newer.older = entry.older } else { newest = entry.older }
            entry.older = nil
            entry.newer = nil
        }

        mutating func linkNewest(_ entry: Entry) {
            entry.older = newest
            entry.newer = nil
            if let newest { newest.newer = entry } else { oldest = entry }
            newest = entry
        }

        /// Moves `entry` to the newest end of the list.
        mutating func touch(_ entry: Entry) {
            guard newest !== entry else { return }
            unlink(entry)
            linkNewest(entry)
        }

        mutating func remove(_ id: SessionID, as reason: Release) -> Root? {
            guard let entry = entries.removeValue(forKey: id) else { return nil }
            unlink(entry)
            switch reason {
            case .ended: statistics.ended += 1
            case .expired: statistics.expired += 1
            case .evicted: statistics.evicted += 1
            }
            statistics.live = entries.count
            if case .ready(let root) = entry.slot { return root }
            return nil
        }

        func isExpired(_ entry: Entry, now: Duration, timeout: Duration) -> Bool {
            guard entry.busy == 0, case .ready = entry.slot else { return false }
            return now - entry.lastUsed >= timeout
        }
    }

    public let configuration: Configuration
    private let orchestrator: AxiomOrchestrator
    private let clock: any TimeSource
    private let shards: LockShards<Table>
    /// The most sessions one shard holds.
    private let shardLimit: Int

    public init(orchestrator: AxiomOrchestrator, root: Root.Type = Root.self, configuration: Configuration,
                clock: any TimeSource) {
        self.orchestrator = orchestrator
        self.configuration = configuration
        self.clock = clock
        shards = LockShards(count: configuration.shards) { Table() }
        shardLimit = (configuration.maxSessions + configuration.shards - 1) / configuration.shards
    }

    /// Runs `body` with the session's root context, creating it on first use.
    /// The session is busy (never evicted) while `body` runs, and its idle
    /// time starts again when `body` returns.
    public func withSession<R: Sendable>(_ id: SessionID, _ body: (Root) async throws -> R) async throws -> R {
        let (root, serial) = try await acquire(id)
        defer { finishUse(id, serial: serial) }
        return try await body(root)
    }

    /// Starts a use of the session that outlasts the call (a response that
    /// keeps streaming after its handler returned): the session is busy, as
    /// during `withSession`, until the use ends (`end()`, or the use is
    /// released). Logout still ends it at once.
    public func beginUse(_ id: SessionID) async throws -> SessionUse<Root> {
        let (root, serial) = try await acquire(id)
        return SessionUse(context: root) { [weak self] in self?.finishUse(id, serial: serial) }
    }

    /// Logout: releases the session now. Returns whether it existed.
    @discardableResult
    public func end(_ id: SessionID) async -> Bool {
        let (existed, root) = shards.withLock(for: id) { table -> (Bool, Root?) in
            let existed = table.entries[id] != nil
            return (existed, table.remove(id, as: .ended))
        }
        if let root { await orchestrator.releaseContext(root.contextID) }
        return existed
    }

    /// Releases every idle session unused for `idleTimeout` or longer.
    /// Returns how many were released. The server calls it periodically;
    /// expired sessions are also replaced lazily on their next use.
    @discardableResult
    public func evictExpired() async -> Int {
        let now = clock.monotonicNow()
        let timeout = configuration.idleTimeout
        let roots: [Root] = shards.map { table in
            var expired: [SessionID] = []
            var cursor = table.oldest
            while let entry = cursor {
                if now - entry.lastUsed < timeout { break }
                if table.isExpired(entry, now: now, timeout: timeout) { expired.append(entry.id) }
                cursor = entry.newer
            }
            return expired.compactMap { table.remove($0, as: .expired) }
        }.flatMap { $0 }
        for root in roots { await orchestrator.releaseContext(root.contextID) }
        return roots.count
    }

    /// Runs ``evictExpired()`` every `interval` until the calling task is
    /// cancelled (the server runs it in a task of its own).
    public func expireIdleSessions(every interval: Duration) async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            await evictExpired()
        }
    }

    public var count: Int { shards.map(\.entries.count).reduce(0, +) }

    public var statistics: Statistics {
        shards.map(\.statistics).reduce(Statistics(live: 0, created: 0, ended: 0, expired: 0, evicted: 0)) { total, part in
            Statistics(live: total.live + part.live, created: total.created + part.created,
                       ended: total.ended + part.ended, expired: total.expired + part.expired,
                       evicted: total.evicted + part.evicted)
        }
    }

    public func contains(_ id: SessionID) -> Bool { shards.withLock(for: id) { $0.entries[id] != nil } }

    // MARK: Internals

    private enum Step {
        case existing(Slot, UInt64)
        case created(Task<Root, any Error>, UInt64)
        case full
    }

    private func acquire(_ id: SessionID) async throws -> (Root, UInt64) {
        let now = clock.monotonicNow()
        let timeout = configuration.idleTimeout
        let limit = shardLimit
        let orchestrator = self.orchestrator
        var released: [Root] = []
        let home = shards.index(of: id)
        let step: Step = shards.withLock(at: home) { table in
            if let entry = table.entries[id] {
                if table.isExpired(entry, now: now, timeout: timeout) {
                    if let root = table.remove(id, as: .expired) { released.append(root) }
                } else {
                    entry.busy += 1
                    entry.lastUsed = now
                    table.touch(entry)
                    return .existing(entry.slot, entry.serial)
                }
            }
            if table.entries.count >= limit {
                var cursor = table.oldest
                var victim: SessionID?
                while let entry = cursor {
                    if entry.busy == 0, case .ready = entry.slot {
                        victim = entry.id
                        break
                    }
                    cursor = entry.newer
                }
                guard let victim else { return .full }
                if let root = table.remove(victim, as: .evicted) { released.append(root) }
            }
            let serial = table.nextSerial
            table.nextSerial += 1
            let task = Task<Root, any Error> {
                try await orchestrator.createContext(Root.self, parent: nil)
            }
            let entry = Entry(id: id, slot: .pending(task), lastUsed: now, busy: 1, serial: serial)
            table.entries[id] = entry
            table.linkNewest(entry)
            table.statistics.created += 1
            table.statistics.live = table.entries.count
            return .created(task, serial)
        }
        for root in released { await orchestrator.releaseContext(root.contextID) }

        switch step {
        case .full:
            throw AxiomError.sessionCapacityExhausted(limit: configuration.maxSessions)
        case .existing(.ready(let root), let serial):
            return (root, serial)
        case .existing(.pending(let task), let serial):
            let root: Root
            do {
                root = try await task.value
            } catch {
                finishUse(id, serial: serial)
                throw error
            }
            // Ended (or replaced) while it was being created.
            guard shards.withLock(at: home, { $0.entries[id]?.serial == serial }) else { throw AxiomError.sessionEnded(id) }
            return (root, serial)
        case .created(let task, let serial):
            let root: Root
            do {
                root = try await task.value
            } catch {
                shards.withLock(at: home) { table in
                    if let entry = table.entries[id], entry.serial == serial {
                        table.unlink(entry)
                        table.entries[id] = nil
                        table.statistics.live = table.entries.count
                    }
                }
                throw error
            }
            let kept = shards.withLock(at: home) { table -> Bool in
                guard let entry = table.entries[id], entry.serial == serial else { return false }
                entry.slot = .ready(root)
                return true
            }
            if !kept {
                await orchestrator.releaseContext(root.contextID)
                throw AxiomError.sessionEnded(id)
            }
            return (root, serial)
        }
    }

    private func finishUse(_ id: SessionID, serial: UInt64) {
        let now = clock.monotonicNow()
        shards.withLock(for: id) { table in
            guard let entry = table.entries[id], entry.serial == serial else { return }
            entry.busy -= 1
            entry.lastUsed = now
            table.touch(entry)
        }
    }
}
