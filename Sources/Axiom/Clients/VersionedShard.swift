/// One shard of a `VersionedWorkingSet`, behind its lock: a `WorkingSet` of
/// entries that each keep the committed version they hold, the
/// representation made of that version (if any), and the misses being read.
///
/// ## Never older than storage's last commit it was told of
/// Rows arrive in two ways, both possibly late: a miss's read (`fill`) and a
/// commit (`applyCommitted`), and either may land after a newer version was
/// committed. A held entry keeps its version, so a late row for it is
/// refused. The risk is an entry that is *not* held: a newer version was
/// applied and then evicted or forgotten, and a row read before that lands
/// now. So every arrival names the `generation` (count of commits applied
/// and keys forgotten) it started at, and the shard remembers
/// `forgottenAt`, the newest generation whose change it no longer holds: an
/// unheld row that started before it is returned to its caller (it was true
/// when it was read) but not kept.
@usableFromInline
struct VersionedShard<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline
    struct Entry: Sendable {
        @usableFromInline var key: Key
        @usableFromInline var value: Value
        @usableFromInline var version: Int64
        /// The generation of the commit that set this entry; 0 when a read
        /// filled it (a read knows nothing that a commit still to be applied
        /// will not bring).
        @usableFromInline var stamp: UInt64
        /// What a caller made of this version (an encoded body), kept until
        /// the version changes.
        @usableFromInline var representation: (any Sendable)?

        @inlinable
        init(key: Key, value: Value, version: Int64, stamp: UInt64, representation: (any Sendable)? = nil) {
            self.key = key
            self.value = value
            self.version = version
            self.stamp = stamp
            self.representation = representation
        }
    }

    /// Callers waiting for a miss another caller is reading.
    @usableFromInline typealias Waiter = UnsafeContinuation<VersionedMiss<Key, Value>, any Error>

    /// A miss being read: the generation it began at, and who waits for it.
    @usableFromInline
    struct Flight: Sendable {
        @usableFromInline let started: UInt64
        @usableFromInline var waiters: [Waiter] = []

        @inlinable
        init(started: UInt64) { self.started = started }
    }

    @usableFromInline var entries: WorkingSet<Key, Entry>
    @usableFromInline var generation: UInt64 = 0
    @usableFromInline var forgottenAt: UInt64 = 0
    /// Keys being read, with who waits for each.
    @usableFromInline var reading: [Key: Flight] = [:]

    @inlinable
    init(capacity: Int) {
        entries = WorkingSet(capacity: capacity)
    }

    /// The held entry, marked as recently used and counted as a lookup,
    /// read in place (`WorkingSet.lookup(_:reading:)`).
    @inlinable
    mutating func lookup<Result>(_ key: Key, reading read: (Entry) throws -> Result) rethrows -> Result? {
        try entries.lookup(key, reading: read)
    }

    /// `lookup` for a key whose lookup was already counted.
    @inlinable
    mutating func recheck(_ key: Key) -> Entry? { entries.recheck(key) }

    @inlinable
    func peek(_ key: Key) -> Entry? { entries.peek(key) }

    /// Keeps a row read by a read that began at `started`; returns the
    /// newest value known (the held one when it is newer).
    @inlinable
    mutating func fill(_ row: Versioned<Key, Value>, startedAt started: UInt64) -> Versioned<Key, Value> {
        if var held = entries.recheck(row.key) {
            guard row.version > held.version else { return Versioned(row.key, held.value, version: held.version) }
            held = Entry(key: row.key, value: row.value, version: row.version, stamp: held.stamp)
            entries.store(held, for: row.key)
            return row
        }
        // Admitted, not stored: a key read once while the set is full does
        // not displace one read often. A read carries no commit, so turning
        // it away forgets nothing.
        if forgottenAt <= started {
            insert(Entry(key: row.key, value: row.value, version: row.version, stamp: 0), admitting: true)
        }
        return row
    }

    /// Applies a committed row of a write that began at `started`. False
    /// when a newer version is held (the row is history and must not be
    /// published as current).
    @inlinable
    mutating func applyCommitted(_ row: Versioned<Key, Value>, startedAt started: UInt64) -> Bool {
        generation += 1
        if let held = entries.peek(row.key) {
            guard row.version > held.version else { return false }
            entries.store(Entry(key: row.key, value: row.value, version: row.version, stamp: generation), for: row.key)
            return true
        }
        if forgottenAt <= started {
            insert(Entry(key: row.key, value: row.value, version: row.version, stamp: generation))
        } else {
            forgottenAt = generation
        }
        return true
    }

    /// Keeps `representation` with `key`'s entry if it still holds `version`.
    @inlinable
    mutating func attach(_ representation: any Sendable, to key: Key, version: Int64) {
        guard var held = entries.peek(key), held.version == version else { return }
        held.representation = representation
        entries.store(held, for: key)
    }

    /// Forgets every entry `matches` selects (changed elsewhere, revoked);
    /// a read that began before this may hold what they were and is not kept.
    @inlinable
    mutating func forget(where matches: (Value) -> Bool) -> [Value] {
        generation += 1
        forgottenAt = generation
        return entries.removeAll { matches($0.value) }.map(\.value)
    }

    @inlinable
    mutating func forget(_ key: Key) {
        generation += 1
        forgottenAt = generation
        entries.remove(key)
    }

    /// An entry not held yet (`admitting`: a read's, kept only if it earned
    /// a place); an evicted entry's commit is one the shard no longer holds.
    @inlinable
    mutating func insert(_ entry: Entry, admitting: Bool = false) {
        let victim = admitting ? entries.admit(entry, for: entry.key).evicted : entries.store(entry, for: entry.key)
        if let victim { forgottenAt = max(forgottenAt, victim.stamp) }
    }
}

/// What a caller of a miss learns: the row read (nil: no such key), or
/// that it is the one to read it (`shared`: for the callers that join).
@usableFromInline
enum VersionedMiss<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    case read(Versioned<Key, Value>?)
    case lead(generation: UInt64, shared: Bool)
}
