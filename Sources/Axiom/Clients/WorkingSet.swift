/// A client's bounded working set: at most `capacity` values by key, the
/// least recently used evicted by CLOCK (a hit only sets a flag, so a read
/// stays a lookup; an LRU list would relink nodes on every hit). The
/// catalogue's `ProductCache` and the users and carts clients keep theirs
/// in one. SQLite holds everything; this holds what
/// live sessions and recent requests asked for, so memory does not grow
/// with the tables. The owner decides when a value read from
/// storage may be kept (see the users and carts clients: a read that may
/// have raced a commit is returned, not kept). Sets read far more widely
/// than they can hold (products) keep what they read through `admit`.
public struct WorkingSet<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline
    struct Entry: Sendable {
        @usableFromInline var key: Key
        @usableFromInline var value: Value
        @usableFromInline var referenced: Bool

        @inlinable
        init(key: Key, value: Value, referenced: Bool) {
            self.key = key
            self.value = value
            self.referenced = referenced
        }
    }

    public let capacity: Int
    /// `lookup`s that found their key, and those that did not: what an
    /// operator sizing the bound needs (`axiom_working_set_lookups_total`).
    /// `peek` and `contains` are bookkeeping, not reads, and count neither.
    @inlinable public var hits: UInt64 { hitCount }
    @inlinable public var misses: UInt64 { missCount }
    @usableFromInline var hitCount: UInt64 = 0
    @usableFromInline var missCount: UInt64 = 0
    @usableFromInline var entries: [Entry?] = []
    @usableFromInline var slots: [Key: Int] = [:]
    @usableFromInline var free: [Int] = []
    @usableFromInline var hand = 0
    /// Made by the first `admit` that finds the set full.
    @usableFromInline var doorkeeper: Doorkeeper?

    /// `capacity` is at least 1.
    @inlinable
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    @inlinable
    public var count: Int { slots.count }

    @inlinable
    public var values: [Value] { entries.compactMap { $0?.value } }

    /// How full it is and how its lookups went, under `name`.
    @inlinable
    public func usage(_ name: String) -> WorkingSetUsage {
        WorkingSetUsage(name: name, entries: count, capacity: capacity, hits: hits, misses: misses)
    }

    /// The value, marked as recently used.
    @inlinable
    public mutating func lookup(_ key: Key) -> Value? {
        lookup(key) { $0 }
    }

    /// `lookup`, handing the held value to `read` where it lies and
    /// returning what `read` takes from it: returning the value copied it
    /// whole (every field retained, then released) for a caller that
    /// wanted a part of it.
    @inlinable
    public mutating func lookup<Result>(_ key: Key, reading read: (Value) throws -> Result) rethrows -> Result? {
        guard let slot = slots[key] else {
            missCount &+= 1
            return nil
        }
        hitCount &+= 1
        entries[slot]?.referenced = true
        return try entries[slot].map { try read($0.value) }
    }

    /// `lookup` again for a key whose lookup was already counted (the
    /// second look after waiting for the key's turn, or a fill checking
    /// what a concurrent read kept): marks it used, counts nothing.
    @inlinable
    public mutating func recheck(_ key: Key) -> Value? {
        guard let slot = slots[key] else { return nil }
        entries[slot]?.referenced = true
        return entries[slot]?.value
    }

    /// Whether `key` is held, without marking it used.
    @inlinable
    public func contains(_ key: Key) -> Bool { slots[key] != nil }

    /// The value, without marking it used.
    @inlinable
    public func peek(_ key: Key) -> Value? {
        slots[key].flatMap { entries[$0]?.value }
    }

    /// Keeps `value` for `key` (replacing what was there), evicting the
    /// least recently used entry when full; returns the evicted value (the
    /// catalogue notes what an evicted product's commit was).
    @discardableResult
    @inlinable
    public mutating func store(_ value: Value, for key: Key) -> Value? {
        if let slot = slots[key] {
            entries[slot] = Entry(key: key, value: value, referenced: true)
            return nil
        }
        let entry = Entry(key: key, value: value, referenced: false)
        if let slot = free.popLast() {
            entries[slot] = entry
            slots[key] = slot
            return nil
        }
        if entries.count < capacity {
            slots[key] = entries.count
            entries.append(entry)
            return nil
        }
        // CLOCK: clear flags until an entry not used since the hand last
        // passed (every slot is filled here: `free` is empty).
        while entries[hand]?.referenced == true {
            entries[hand]?.referenced = false
            hand = (hand + 1) % capacity
        }
        let victim = entries[hand]
        if let victim { slots[victim.key] = nil }
        entries[hand] = entry
        slots[key] = hand
        hand = (hand + 1) % capacity
        return victim?.value
    }

    /// Keeps `value`, read from storage on a miss, if it has earned a
    /// place: always while the set has room or holds `key` already; once
    /// full, only on `key`'s second arrival within the last `2 × capacity`
    /// keys turned away (at least 64: `Doorkeeper`). A key read once never
    /// displaces one read often, so a crawl does not flush the set and
    /// popular keys stay held.
    /// Returns whether it was kept, and the value evicted for it.
    @inlinable
    public mutating func admit(_ value: Value, for key: Key) -> (kept: Bool, evicted: Value?) {
        if slots[key] == nil, free.isEmpty, entries.count >= capacity {
            if doorkeeper == nil { doorkeeper = Doorkeeper(window: max(2 * capacity, 64)) }
            guard doorkeeper?.noteAgain(key.hashValue) == true else { return (false, nil) }
        }
        return (true, store(value, for: key))
    }

    /// Forgets `key`; returns its value if it was held.
    @discardableResult
    @inlinable
    public mutating func remove(_ key: Key) -> Value? {
        guard let slot = slots.removeValue(forKey: key) else { return nil }
        let value = entries[slot]?.value
        entries[slot] = nil
        free.append(slot)
        return value
    }

    /// Forgets every entry whose value matches; returns them.
    @discardableResult
    @inlinable
    public mutating func removeAll(where matches: (Value) -> Bool) -> [Value] {
        var removed: [Value] = []
        for case let entry? in entries where matches(entry.value) {
            if let value = remove(entry.key) { removed.append(value) }
        }
        return removed
    }
}
