import Domain
import FoundationEssentials

/// A change a signed-in user's live stream (`GET /events`) carries.
public enum LiveUpdate: Sendable {
    /// The user's cart changed (from any of their sessions), priced now.
    case cartChanged(CartQuote)
    case orderCreated(Order)
    /// The order or its payment changed; with the payment as read then.
    case orderChanged(OrderWithPayment)
}

/// An update with its place in one session's stream. `id` is opaque to
/// clients: they send the last one back as `Last-Event-ID` to resume.
public struct LiveEvent: Sendable {
    public let id: String
    public let update: LiveUpdate
}

/// What a client gets when it (re)connects.
public struct LiveSubscription: Sendable {
    /// The events after the client's `Last-Event-ID`, oldest first.
    public let replay: [LiveEvent]
    /// True when `Last-Event-ID` could not be resumed: older than the replay
    /// buffer, or from another session or process. The client should fetch
    /// the cart and orders afresh.
    public let mustRefetch: Bool
    /// What happens from now on; finishes on logout and when the session's
    /// context is released.
    public let events: AsyncStream<LiveEvent>
}

/// One session's recent updates (a bounded ring, for resuming) and its live
/// subscribers. Confined to the owning context's actor.
struct LiveUpdateJournal {
    let capacity: Int
    /// Distinguishes this journal's ids from any other's (another session,
    /// an earlier process), so a foreign `Last-Event-ID` is recognised.
    let epoch = String(UUID().uuidString.prefix(8)).lowercased()
    private var recent: [LiveEvent] = []
    private var lastSequence: UInt64 = 0
    private var subscribers: [UInt64: AsyncStream<LiveEvent>.Continuation] = [:]
    private var nextSubscriber: UInt64 = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    mutating func append(_ update: LiveUpdate) {
        lastSequence += 1
        let event = LiveEvent(id: "\(epoch)-\(lastSequence)", update: update)
        recent.append(event)
        if recent.count > capacity { recent.removeFirst(recent.count - capacity) }
        var fallenBehind: [UInt64] = []
        for (id, continuation) in subscribers {
            if case .dropped = continuation.yield(event) { fallenBehind.append(id) }
        }
        // A subscriber a whole buffer behind (a stalled client) would miss
        // this event without knowing. Its stream ends instead, after the
        // events it holds, which have no gap: it reconnects with the last id
        // it saw and gets the rest from `recent`, or a reset.
        for id in fallenBehind { subscribers.removeValue(forKey: id)?.finish() }
    }

    /// A subscriber's stream plus what it missed after `lastEventID`.
    mutating func subscribe(after lastEventID: String?,
                            onTermination: @escaping @Sendable (UInt64) -> Void) -> LiveSubscription {
        let (replay, mustRefetch) = resume(after: lastEventID)
        let (stream, continuation) = AsyncStream.makeStream(of: LiveEvent.self,
                                                            bufferingPolicy: .bufferingOldest(capacity))
        let id = nextSubscriber
        nextSubscriber += 1
        subscribers[id] = continuation
        continuation.onTermination = { _ in onTermination(id) }
        return LiveSubscription(replay: replay, mustRefetch: mustRefetch, events: stream)
    }

    mutating func unsubscribe(_ id: UInt64) {
        subscribers[id] = nil
    }

    /// Ends every subscriber's stream (logout, release).
    mutating func finishAll() {
        let ending = subscribers.values
        subscribers = [:]
        for continuation in ending { continuation.finish() }
    }

    var subscriberCount: Int { subscribers.count }

    private func resume(after lastEventID: String?) -> ([LiveEvent], Bool) {
        guard let lastEventID, !lastEventID.isEmpty else { return ([], false) }
        let parts = lastEventID.split(separator: "-", maxSplits: 1)
        guard parts.count == 2, parts[0] == epoch, let sequence = UInt64(parts[1]), sequence <= lastSequence else {
            return ([], true)
        }
        let oldestKept = lastSequence - UInt64(recent.count) + 1
        // Everything after `sequence` must still be here.
        guard sequence + 1 >= oldestKept else { return ([], true) }
        return (Array(recent.suffix(Int(lastSequence - sequence))), false)
    }
}
