import Axiom
import Domain

/// Where a feature's observation hands its events: the session's live
/// streams. Holds its context weakly, so an observation never keeps a
/// released session alive.
public struct LiveSink: Sendable {
    private weak let context: LiveUpdatesContext?

    init(_ context: LiveUpdatesContext) {
        self.context = context
    }

    /// Sends `update` to the session's streams with the change's outbox
    /// sequence (nil for a reset).
    public func send(_ update: LiveUpdate, sequence: Int64?) async {
        await context?.record(update, sequence: sequence)
    }

    /// `user`'s updates on `broadcaster`, subscribed now; `what` names them
    /// in the reset sent when the subscription falls behind.
    public func subscribe<Update: Sendable>(_ broadcaster: StateBroadcaster<Update>, of user: UserID,
                                            what: String) -> LiveFollow<Update> {
        LiveFollow(sink: self, broadcaster: broadcaster, user: user, first: broadcaster.subscribeLossless(key: user),
                   what: what)
    }

    /// Whether a subscription that ended fell behind (a reset went out) and
    /// is to be replaced; false once the observation is over.
    func fellBehind(_ clientFinished: Bool, _ what: String) async -> Bool {
        guard let context else { return false }
        return await context.fellBehind(clientFinished, what)
    }
}
