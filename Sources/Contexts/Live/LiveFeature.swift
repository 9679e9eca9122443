import Axiom
import Domain

/// One feature's events on a signed-in user's live stream (`GET /events`),
/// declared beside the feature: how it observes a user's changes and how it
/// replays what changed after a `Last-Event-ID`. The composition root lists
/// the features (`LiveFeatures`); each session's `LiveUpdatesContext` makes
/// one of each through its own creation token, so a feature resolves its
/// clients as a context does and they are recorded as the context's.
///
/// What a feature must keep, for the stream's guarantees to hold:
/// - lossless: an update it cannot show (not priceable, not readable) goes
///   out as a `reset`, never dropped in silence, and a subscription that
///   falls behind is replaced after a reset (`LiveSink.subscribe`, `LiveFollow`);
/// - ids are outbox sequences: each event carries its change's sequence,
///   the same on every replica, so a resume works on any of them.
public protocol LiveFeature: Sendable {
    init(_ creation: ContextCreation) throws

    /// Subscribes to `user`'s changes before returning (the context reads
    /// the outbox for a replay after this: a change committed later must
    /// be in the subscription) and returns the task that hands each change
    /// to `sink` until it is cancelled or the feature's client ends.
    func observe(_ user: UserID, into sink: LiveSink) -> Task<Void, Never>

    /// The current state of what changed for `user` in `(after, through]`
    /// (the outbox head of the resume), read from storage, each event with
    /// the sequence of its newest change there; a `reset` (without one)
    /// where a change cannot be shown. Storage errors are thrown.
    func replay(of user: UserID, after: Int64, through: Int64) async throws -> [LiveEvent]
}
