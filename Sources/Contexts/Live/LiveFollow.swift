import Axiom
import Domain

/// One user's updates from a client's broadcaster, subscribed when it is
/// made (`LiveSink.subscribe`): a feature makes it before `observe`
/// returns, so a change committed after the replay's outbox read is in it.
/// Lossless: the subscription ends rather than drop an update; when it ends
/// because it fell a buffer behind, a reset goes out and it subscribes again.
public struct LiveFollow<Update: Sendable>: Sendable {
    let sink: LiveSink
    let broadcaster: StateBroadcaster<Update>
    let user: UserID
    let first: AsyncStream<Update>
    let what: String

    /// Hands each update to `handle` until the observation is over (the
    /// task cancelled, the client shut down, the session ended).
    public func run(_ handle: (Update) async -> Void) async {
        var updates = first
        while true {
            for await update in updates { await handle(update) }
            guard await sink.fellBehind(broadcaster.isFinished, what) else { return }
            updates = broadcaster.subscribeLossless(key: user)
        }
    }
}
