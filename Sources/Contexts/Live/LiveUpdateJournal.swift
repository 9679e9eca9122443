/// One session's live subscribers, and the id each update goes out with.
/// Confined to the owning context's actor. Nothing is kept for resuming:
/// a `Last-Event-ID` is a change-outbox sequence, and a resume reads the
/// outbox (`LiveUpdatesContext`), on whichever process the client reaches.
struct LiveUpdateJournal {
    /// How many events a subscriber may hold unsent.
    let capacity: Int
    /// The newest id sent: ids within a stream only increase.
    private(set) var lastID: Int64 = 0
    private var subscribers: [UInt64: AsyncStream<LiveEvent>.Continuation] = [:]
    private var nextSubscriber: UInt64 = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Sends `update` to every subscriber, with `sequence` as its id. One
    /// whose sequence is not above the last id sent (another process's
    /// change applied after a newer local one) goes without an id, so a
    /// client's resume point never moves back and no id repeats.
    mutating func append(_ update: LiveUpdate, sequence: Int64?) {
        var id: Int64?
        if let sequence, sequence > lastID {
            id = sequence
            lastID = sequence
        }
        let event = LiveEvent(id: id, update: update, sequence: sequence)
        var fallenBehind: [UInt64] = []
        for (subscriber, continuation) in subscribers {
            if case .dropped = continuation.yield(event) { fallenBehind.append(subscriber) }
        }
        // A subscriber a whole buffer behind (a stalled client) would miss
        // this event without knowing. Its stream ends instead, after the
        // events it holds, which have no gap: it reconnects with the last id
        // it saw and the outbox replays the rest.
        for subscriber in fallenBehind { subscribers.removeValue(forKey: subscriber)?.finish() }
    }

    /// A new subscriber's number and stream.
    mutating func subscribe(onTermination: @escaping @Sendable (UInt64) -> Void) -> (UInt64, AsyncStream<LiveEvent>) {
        let (stream, continuation) = AsyncStream.makeStream(of: LiveEvent.self,
                                                            bufferingPolicy: .bufferingOldest(capacity))
        let id = nextSubscriber
        nextSubscriber += 1
        subscribers[id] = continuation
        continuation.onTermination = { _ in onTermination(id) }
        return (id, stream)
    }

    mutating func unsubscribe(_ id: UInt64) {
        subscribers.removeValue(forKey: id)?.finish()
    }

    /// Ends every subscriber's stream (logout, release).
    mutating func finishAll() {
        let ending = subscribers.values
        subscribers = [:]
        for continuation in ending { continuation.finish() }
    }

    var subscriberCount: Int { subscribers.count }
}
