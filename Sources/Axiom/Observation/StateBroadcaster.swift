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
public final class StateBroadcaster<Update: Sendable>: Sendable {
    private struct Observers {
        var byID: [UInt64: AsyncStream<Update>.Continuation] = [:]
        /// Rebuilt on every subscribe/unsubscribe so `publish` only copies a
        /// reference out of the lock.
        var list: [AsyncStream<Update>.Continuation] = []
        var nextID: UInt64 = 0
        var finished = false

        mutating func rebuild() { list = Array(byID.values) }
    }

    public let bufferLimit: Int
    private let observers = Mutex(Observers())

    public init(bufferLimit: Int = 256) {
        precondition(bufferLimit > 0, "bufferLimit must be positive")
        self.bufferLimit = bufferLimit
    }

    /// A new observer.
    public func subscribe() -> AsyncStream<Update> {
        subscribe(bufferLimit: bufferLimit)
    }

    /// A new observer with its own buffer size.
    public func subscribe(bufferLimit: Int) -> AsyncStream<Update> {
        let (stream, continuation) = AsyncStream.makeStream(of: Update.self,
                                                            bufferingPolicy: .bufferingNewest(max(1, bufferLimit)))
        let id: UInt64? = observers.withLock { observers in
            if observers.finished { return nil }
            let id = observers.nextID
            observers.nextID += 1
            observers.byID[id] = continuation
            observers.rebuild()
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

    /// Delivers `update` to every live observer, without waiting for any.
    public func publish(_ update: Update) {
        let list = observers.withLock { $0.list }
        for continuation in list {
            continuation.yield(update)
        }
    }

    /// Ends every observer's stream; later subscriptions end at once.
    public func finish() {
        let list: [AsyncStream<Update>.Continuation] = observers.withLock { observers in
            observers.finished = true
            let list = observers.list
            observers.byID = [:]
            observers.list = []
            return list
        }
        for continuation in list { continuation.finish() }
    }

    public var observerCount: Int { observers.withLock { $0.byID.count } }

    private func remove(_ id: UInt64) {
        observers.withLock { observers in
            if observers.byID.removeValue(forKey: id) != nil { observers.rebuild() }
        }
    }
}
