import Sharding

/// The one caching contract of the clients: a bounded working set of
/// versioned rows, split by key into shards that each sit behind their own
/// lock (read from every event loop without a hop onto the client's
/// actor). Storage holds everything; this holds what was asked for lately.
/// A single key's path (a read, a write, a checkout of a few products)
/// takes the locks of the shards its keys land in, never every shard's.
/// - **Bounded**: at most `capacity` entries (CLOCK; once full, a key read
///   from storage is kept on its second read only: `WorkingSet.admit`).
/// - **Versioned**: each entry keeps the committed version of its row; a
///   late row never replaces a newer one, and a row read before a change
///   the set no longer holds is returned but not kept (`VersionedShard`).
/// - **Filled single-flight**: concurrent misses of one key share one read.
/// - **Invalidated** by the client's own commits (`applyCommitted`, with
///   the generation the write started at) and by the change feed
///   (`forget`: another replica changed the key).
/// - **Representations kept with their entry**: what a caller makes of a
///   value (an encoded body with its tag) lives in the entry of the version
///   it was made from, and goes when that version is replaced.
public final class VersionedWorkingSet<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The shards' generations when a read or a write began.
    public struct Start: Sendable {
        @usableFromInline
        enum Generations: Sendable {
            case one(index: Int, generation: UInt64)
            case some([Noted])
            case every([UInt64])
        }

        @usableFromInline
        struct Noted: Sendable {
            @usableFromInline let index: Int
            @usableFromInline let generation: UInt64

            @inlinable
            init(index: Int, generation: UInt64) {
                self.index = index
                self.generation = generation
            }
        }

        @usableFromInline let generations: Generations

        @inlinable
        init(generations: Generations) { self.generations = generations }

        /// 0 for a shard the start did not note: its rows are kept only if
        /// that shard never forgot anything.
        @inlinable
        func generation(at index: Int) -> UInt64 {
            switch generations {
            case .one(let noted, let generation): noted == index ? generation : 0
            case .some(let noted): noted.first { $0.index == index }?.generation ?? 0
            case .every(let generations): generations[index]
            }
        }
    }

    public let name: String
    public let capacity: Int
    @usableFromInline let shards: LockShards<VersionedShard<Key, Value>>

    /// `name`: the set's name in `/metrics`. `capacity`: entries kept in
    /// all (at least 1); one shard per `entriesPerShard` of them, at most 16.
    @inlinable
    public init(name: String, capacity: Int, entriesPerShard: Int = 256) {
        self.name = name
        self.capacity = max(1, capacity)
        let count = max(1, min(16, self.capacity / max(1, entriesPerShard)))
        let each = (self.capacity + count - 1) / count
        shards = LockShards(count: count) { VersionedShard(capacity: each) }
    }

    // MARK: Reads

    /// The value held for `key`, marked as recently used; never reads storage.
    @inlinable
    public func lookup(_ key: Key) -> Value? {
        shards.withLock(for: key) { $0.lookup(key) { $0.value } }
    }

    /// The row held for `key` with its version, without marking it used or
    /// counting a lookup (a writer checking what it starts from).
    @inlinable
    public func held(_ key: Key) -> Versioned<Key, Value>? {
        shards.withLock(for: key) { shard in shard.peek(key).map { Versioned(key, $0.value, version: $0.version) } }
    }

    /// The value for `key`: held, or read by `read` and kept. Concurrent
    /// misses of one key wait for one read and share its row (or its error).
    @inlinable
    public func value(_ key: Key, readingMiss read: @Sendable (Key) async throws -> Versioned<Key, Value>?)
        async throws -> Value? {
        if let held = lookup(key) { return held }
        return try await readOnce(key, read)?.value
    }

    /// What `make` makes of the value for `key` (held, or read as
    /// `value(_:readingMiss:)` does), made once per version of a held entry
    /// and kept with it; nil when there is no such key or `include` turns
    /// its value away. A hit reads the entry in place and copies out the
    /// representation alone: the value is not copied for a caller that
    /// only asks a question of it (every field retained and released, on
    /// entries that every event loop reads).
    @inlinable
    public func represented<Representation: Sendable>(
        _ key: Key, readingMiss read: @Sendable (Key) async throws -> Versioned<Key, Value>?,
        as make: (Value) throws -> Representation, where include: (Value) -> Bool
    ) async throws -> Representation? {
        let index = shards.index(of: key)
        let row: Versioned<Key, Value>
        let hit = shards.withLock(at: index) { shard in
            shard.lookup(key) { entry -> (made: Representation?, unmade: Versioned<Key, Value>?) in
                guard include(entry.value) else { return (nil, nil) }
                if let made = entry.representation as? Representation { return (made, nil) }
                return (nil, Versioned(key, entry.value, version: entry.version))
            }
        }
        if let hit {
            if let made = hit.made { return made }
            guard let unmade = hit.unmade else { return nil }
            row = unmade
        } else {
            guard let read = try await readOnce(key, read), include(read.value) else { return nil }
            row = read
        }
        let made = try make(row.value)
        shards.withLock(at: index) { $0.attach(made, to: key, version: row.version) }
        return made
    }

    /// Every value held (a copy, for a client's `state`).
    @inlinable
    public var values: [Value] { shards.map { $0.entries.values.map(\.value) }.flatMap { $0 } }

    @inlinable
    public var count: Int { shards.map { $0.entries.count }.reduce(0, +) }

    /// How full it is and how its lookups went.
    @inlinable
    public var usage: WorkingSetUsage {
        let name = self.name
        return WorkingSetUsage(name: name, summing: shards.map { $0.entries.usage(name) }, capacity: capacity)
    }

    // MARK: Rows from storage

    /// Noted before a read or a write whose keys are not known until it
    /// runs (a release of a reservation kept in storage): every shard's
    /// lock, one at a time.
    @inlinable
    public func start() -> Start {
        Start(generations: .every(shards.map { $0.generation }))
    }

    /// Noted before a read or a write of `keys`: one lock for each shard
    /// they land in. A row of another key that the write brings back is
    /// kept only if its shard never forgot anything (generation 0).
    @inlinable
    public func start(of keys: some Sequence<Key>) -> Start {
        var noted: [Start.Noted] = []
        for key in keys {
            let index = shards.index(of: key)
            guard !noted.contains(where: { $0.index == index }) else { continue }
            noted.append(Start.Noted(index: index, generation: shards.withLock(at: index) { $0.generation }))
        }
        if noted.count == 1 { return Start(generations: .one(index: noted[0].index, generation: noted[0].generation)) }
        return Start(generations: .some(noted))
    }

    /// Noted before a read or a write of `key` alone: one lock, not every shard's.
    @inlinable
    public func start(of key: Key) -> Start {
        let index = shards.index(of: key)
        return Start(generations: .one(index: index, generation: shards.withLock(at: index) { $0.generation }))
    }

    /// Rows a read that began at `started` found; the newest row known for
    /// each (the held one when it is newer).
    @inlinable
    public func fill(_ rows: [Versioned<Key, Value>], startedAt started: Start) -> [Versioned<Key, Value>] {
        rows.map { row in
            let index = shards.index(of: row.key)
            return shards.withLock(at: index) { $0.fill(row, startedAt: started.generation(at: index)) }
        }
    }

    /// Rows a write that began at `started` committed; those that are
    /// current (not older than what is held), to publish.
    @inlinable
    public func applyCommitted(_ rows: [Versioned<Key, Value>], startedAt started: Start) -> [Versioned<Key, Value>] {
        rows.filter { row in
            let index = shards.index(of: row.key)
            return shards.withLock(at: index) { $0.applyCommitted(row, startedAt: started.generation(at: index)) }
        }
    }

    // MARK: Invalidation

    /// `key` changed elsewhere (another replica, per the change feed).
    @inlinable
    public func forget(_ key: Key) {
        shards.withLock(for: key) { $0.forget(key) }
    }

    /// Every entry `matches` selects changed or is no longer valid; returns
    /// the values that were held.
    @discardableResult
    @inlinable
    public func forget(where matches: (Value) -> Bool) -> [Value] {
        shards.map { $0.forget(where: matches) }.flatMap { $0 }
    }

    /// Everything may have changed (the change feed lost its place).
    @inlinable
    public func forgetAll() {
        forget { _ in true }
    }

    // MARK: Misses

    /// Reads `key` once for every caller that missed it meanwhile. A read
    /// that began before something was forgotten may return what the
    /// forget was about: a caller that comes after it reads on its own.
    @inlinable
    func readOnce(_ key: Key, _ read: @Sendable (Key) async throws -> Versioned<Key, Value>?)
        async throws -> Versioned<Key, Value>? {
        let index = shards.index(of: key)
        let miss = try await withUnsafeThrowingContinuation { (waiter: VersionedShard<Key, Value>.Waiter) in
            let now: VersionedMiss<Key, Value>? = shards.withLock(at: index) { shard in
                if let held = shard.recheck(key) { return .read(Versioned(key, held.value, version: held.version)) }
                guard let flight = shard.reading[key] else {
                    shard.reading[key] = VersionedShard.Flight(started: shard.generation)
                    return .lead(generation: shard.generation, shared: true)
                }
                guard flight.started >= shard.forgottenAt else { return .lead(generation: shard.generation, shared: false) }
                shard.reading[key]?.waiters.append(waiter)
                return nil
            }
            if let now { waiter.resume(returning: now) }
        }
        guard case .lead(let started, let shared) = miss else {
            if case .read(let row) = miss { return row }
            return nil
        }
        let outcome: Result<Versioned<Key, Value>?, any Error>
        do {
            outcome = .success(try await read(key))
        } catch {
            outcome = .failure(error)
        }
        let (waiters, known) = shards.withLock(at: index) { shard in
            let waiters = shared ? shard.reading.removeValue(forKey: key)?.waiters ?? [] : []
            guard case .success(let row?) = outcome else { return (waiters, Versioned<Key, Value>?.none) }
            return (waiters, shard.fill(row, startedAt: started))
        }
        let answer = outcome.map { _ in known }
        for waiter in waiters { waiter.resume(with: answer.map { .read($0) }) }
        return try answer.get()
    }
}
