import Axiom
import Domain
import UserClient

/// A session's live updates (`GET /events`): the signed-in user's changes
/// in every feature the process is composed of (`LiveFeatures`, listed by
/// the composition root), as they happen, made by any session of theirs
/// (or an admin), on this process or another (the clients publish other
/// replicas' changes from the change feed). Each event's id is its change's
/// outbox sequence, so a reconnect resumes on any process and after a
/// restart: the outbox says what changed after the id. The observation
/// stops when the session ends (sign-out, or its token revoked or expired
/// anywhere) or the context is released with its session.
public actor LiveUpdatesContext: SessionFeature {
    /// Events a stream may hold unsent before it ends (the client resumes).
    public static let streamCapacity = 256

    public nonisolated let identity: ContextIdentity
    public nonisolated let caller: SessionCaller
    nonisolated let users: ClientHandle<UserClient>
    nonisolated let features: [any LiveFeature]
    private var journal = LiveUpdateJournal(capacity: LiveUpdatesContext.streamCapacity)
    private var observations: [Task<Void, Never>] = []
    /// Set once the session's end was heard: no new stream opens after it.
    private var ended = false

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        caller = try SessionCaller.of(creation)
        users = try creation.client(UserClient.self)
        features = try (creation.composition(LiveFeatures.self)?.types ?? []).map { try $0.init(creation) }
    }

    /// The caller's changes after what `lastEventID` (an outbox sequence)
    /// saw, then live. The first call starts observing every feature and
    /// the session's end. Storage unavailable for the replay: 503.
    public func liveUpdates(after lastEventID: String?) async throws -> LiveSubscription {
        guard !ended else { throw AuthenticationError.invalidToken }
        let caller = try self.caller.current
        if observations.isEmpty { observe(caller.user.id, sessionID: caller.sessionID) }
        // Subscribed before the outbox is read: a change committed after the
        // read's head is in the stream, one at or below it in the replay.
        // Filtered by the change's sequence, not the id sent: a follower
        // behind here may append an older change late (without an id), and
        // the replay already showed it.
        let (subscriber, stream) = journal.subscribe { [weak self] id in
            Task { await self?.unsubscribe(id) }
        }
        guard let lastEventID, !lastEventID.isEmpty else {
            return LiveSubscription(replay: [], mustRefetch: false, events: stream.filter { _ in true })
        }
        var resumed: LiveReplay?
        do {
            if let sequence = Int64(lastEventID) { resumed = try await replay(for: caller.user.id, after: sequence) }
        } catch {
            journal.unsubscribe(subscriber)
            throw error
        }
        guard let resumed else {
            return LiveSubscription(replay: [], mustRefetch: true, events: stream.filter { _ in true })
        }
        let through = resumed.through
        return LiveSubscription(replay: resumed.events, mustRefetch: false,
                                events: stream.filter { event in event.sequence.map { $0 > through } ?? true })
    }

    /// Live streams open on this session now.
    public var liveSubscriberCount: Int { journal.subscriberCount }

    public func stopObservation() async {
        endLiveUpdates()
    }

    /// Ends every live stream of this session and stops observing for them.
    private func endLiveUpdates() {
        for task in observations { task.cancel() }
        observations = []
        journal.finishAll()
    }

    private func observe(_ userID: UserID, sessionID: String) {
        // Keyed: this context hears its user's changes and its session's
        // end, not every other user's, so a write costs no more with many
        // streams open. Each feature subscribes before `observe` returns.
        let sink = LiveSink(self)
        observations = features.map { $0.observe(userID, into: sink) }
        // Sign-out here, a token revoked elsewhere (the user suspended) or
        // swept at its expiry must not keep a stream of this user's data open.
        let userUpdates = users.updates.subscribe(key: sessionID)
        observations.append(Task { [weak self] in
            for await case .sessionEnded(sessionID) in userUpdates {
                await self?.sessionEnded()
                return
            }
        })
    }

    /// A feature's subscription ended. Unless the observation is over (the
    /// task cancelled, the client shut down, the session ended), it fell a
    /// buffer behind: a reset goes out and the feature subscribes again.
    func fellBehind(_ clientFinished: Bool, _ what: String) -> Bool {
        if Task.isCancelled || clientFinished || ended { return false }
        journal.append(.reset(reason: "too many \(what) changes at once to send each; fetch them again"), sequence: nil)
        return true
    }

    func record(_ update: LiveUpdate, sequence: Int64?) {
        journal.append(update, sequence: sequence)
    }

    private func sessionEnded() {
        ended = true
        endLiveUpdates()
    }

    private func unsubscribe(_ id: UInt64) {
        journal.unsubscribe(id)
    }
}
