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

    /// Follows a lossless subscription (one that ends rather than drop an
    /// update) until the observation is over: when it ends because it fell
    /// a buffer behind, a reset goes out and `resubscribe` replaces it.
    /// `finished` says whether the client shut down (then it is over).
    public func follow<Update: Sendable>(_ first: AsyncStream<Update>, resubscribe: () -> AsyncStream<Update>,
                                         finished: () -> Bool, what: String,
                                         _ handle: (Update) async -> Void) async {
        var updates = first
        while true {
            for await update in updates { await handle(update) }
            guard let context, await context.fellBehind(finished(), what) else { return }
            updates = resubscribe()
        }
    }
}
