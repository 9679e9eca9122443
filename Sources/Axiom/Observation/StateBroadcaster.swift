import Synchronization

/// Fan-out of one stateful client's updates to any number of observers.
///
/// A plain `AsyncStream` has a single consumer, so every subscription gets
/// its own stream with a bounded buffer (`.bufferingNewest(bufferLimit)`):
/// `publish` never waits for a consumer, so a slow or stalled observer never
/// blocks the client or the other observers; when its buffer is full it loses
/// its oldest unread updates (the client's `state` snapshot stays the truth).
/// An observer whose stream terminates (its task cancelled, its iterator
/// dropped) is removed at once; ``observerCount`` is the live count.
///
/// An observer may subscribe to one key (a user, a session) and then gets
/// only the updates published with that key: a client publishing a user's
/// change reaches the observers of that user (plus those of everything), so
/// its cost does not grow with every other user's observers.
public final class StateBroadcaster<Update: Sendable>: Sendable {
    private typealias Continuation = AsyncStream<Update>.Continuation

    /// One observer's stream, and whether it ends rather than lose an update.
    private struct Observer {
        let continuation: Continuation
        let endsWhenBehind: Bool

        func deliver(_ update: Update) {
            // A lossless observer a whole buffer behind would miss this
            // update without knowing: its stream ends instead, and it
            // knows it must catch up (LiveUpdatesContext sends a reset).
            if case .dropped = continuation.yield(update), endsWhenBehind { continuation.finish() }
        }
    }

    /// Observers of one key (or of every update).
    private struct Group {
        var byID: [UInt64: Observer] = [:]
        /// Rebuilt on every subscribe/unsubscribe so `publish` only copies a
        /// reference out of the lock.
        var list: [Observer] = []

        mutating func insert(_ observer: Observer, id: UInt64) {
            byID[id] = observer
            list = Array(byID.values)
        }

        mutating func remove(_ id: UInt64) -> Bool {
            guard byID.removeValue(forKey: id) != nil else { return false }
            list = Array(byID.values)
            return true
        }
    }

    /// A subscription key. `@unchecked`: it is only made from a `Sendable`
    /// key, which `AnyHashable` cannot say of itself.
    private struct ObserverKey: Hashable, @unchecked Sendable {
        let value: AnyHashable

        init<Key: Hashable & Sendable>(_ key: Key) { value = AnyHashable(key) }
    }

    private struct Observers {
        var everything = Group()
        var byKey: [ObserverKey: Group] = [:]
        /// The key of each keyed observer, to find its group on removal.
        var keyOf: [UInt64: ObserverKey] = [:]
        var nextID: UInt64 = 0
        var finished = false

        var count: Int { everything.byID.count + keyOf.count }
    }

    public let bufferLimit: Int
    private let observers = Mutex(Observers())

    public init(bufferLimit: Int = 256) {
        precondition(bufferLimit > 0, "bufferLimit must be positive")
        self.bufferLimit = bufferLimit
    }

    /// A new observer of every update.
    public func subscribe() -> AsyncStream<Update> {
        subscribe(bufferLimit: bufferLimit)
    }

    /// A new observer of every update, with its own buffer size.
    public func subscribe(bufferLimit: Int) -> AsyncStream<Update> {
        add(key: nil, bufferLimit: bufferLimit)
    }

    /// A new observer of the updates published with `key` only.
    public func subscribe<Key: Hashable & Sendable>(key: Key, bufferLimit: Int? = nil) -> AsyncStream<Update> {
        add(key: ObserverKey(key), bufferLimit: bufferLimit ?? self.bufferLimit)
    }

    /// A new observer of the updates published with `key` that never loses
    /// one in silence: when its buffer is full, its stream ends (after the
    /// updates it holds) instead of dropping the new update.
    public func subscribeLossless<Key: Hashable & Sendable>(key: Key, bufferLimit: Int? = nil) -> AsyncStream<Update> {
        add(key: ObserverKey(key), bufferLimit: bufferLimit ?? self.bufferLimit, endsWhenBehind: true)
    }

    /// Whether `finish()` was called: no update will come any more.
    public var isFinished: Bool { observers.withLock { $0.finished } }

    /// Delivers `update` to every observer of every update, without waiting
    /// for any.
    public func publish(_ update: Update) {
        let list = observers.withLock { $0.everything.list }
        for observer in list {
            observer.deliver(update)
        }
    }

    /// Delivers `update` to the observers of `key` and to those of every
    /// update, without waiting for any.
    public func publish<Key: Hashable & Sendable>(_ update: Update, key: Key) {
        let key = ObserverKey(key)
        let (everything, keyed) = observers.withLock { ($0.everything.list, $0.byKey[key]?.list ?? []) }
        for observer in everything {
            observer.deliver(update)
        }
        for observer in keyed {
            observer.deliver(update)
        }
    }

    /// Ends every observer's stream; later subscriptions end at once.
    public func finish() {
        let ending: [Continuation] = observers.withLock { observers in
            observers.finished = true
            let ending = (observers.everything.list + observers.byKey.values.flatMap(\.list)).map(\.continuation)
            observers.everything = Group()
            observers.byKey = [:]
            observers.keyOf = [:]
            return ending
        }
        for continuation in ending { continuation.finish() }
    }

    public var observerCount: Int { observers.withLock { $0.count } }

    /// Observers of `key` only (not counting those of every update).
    public func observerCount<Key: Hashable & Sendable>(key: Key) -> Int {
        observers.withLock { $0.byKey[ObserverKey(key)]?.byID.count ?? 0 }
    }

    private func add(key: ObserverKey?, bufferLimit: Int, endsWhenBehind: Bool = false) -> AsyncStream<Update> {
        let limit = max(1, bufferLimit)
        let (stream, continuation) = AsyncStream.makeStream(
            of: Update.self, bufferingPolicy: endsWhenBehind ? .bufferingOldest(limit) : .bufferingNewest(limit))
        let observer = Observer(continuation: continuation, endsWhenBehind: endsWhenBehind)
        let id: UInt64? = observers.withLock { observers in
            if observers.finished { return nil }
            let id = observers.nextID
            observers.nextID += 1
            if let key {
                observers.byKey[key, default: Group()].insert(observer, id: id)
                observers.keyOf[id] = key
            } else {
                observers.everything.insert(observer, id: id)
            }
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.remove(id)
        }
        return stream
    }

    private func remove(_ id: UInt64) {
        observers.withLock { observers in
            if let key = observers.keyOf.removeValue(forKey: id) {
                _ = observers.byKey[key]?.remove(id)
                if observers.byKey[key]?.byID.isEmpty == true { observers.byKey[key] = nil }
            } else {
                _ = observers.everything.remove(id)
            }
        }
    }
}
