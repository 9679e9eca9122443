/// RFC-001 1.3 and 1.4: domain logic. A client depends on capabilities only
/// (2.1), never on another client (2.6), and is a singleton per type (2.12).
///
/// The RFC isolates clients as actors; so do we. Every action on the one
/// instance of a client is serialised by the actor, which is what makes
/// "1,000 concurrent actions each applied exactly once" hold without locks.
///
/// A context calls a client only through its ``ClientHandle``
/// (`handle.call { … }`): writes are the actor's isolated functions, reads
/// its `nonisolated` ones, every one a plain typed call.
public protocol Client: Actor {
    /// Called once by the orchestrator at start-up, after the client is made.
    func activate() async throws
    /// Called once by the orchestrator at shutdown.
    func deactivate() async
}

/// A client that publishes its changes to any number of observers: every
/// stateful client, and a stateless one whose changes others follow (the
/// orders, read from storage per request).
public protocol PublishingClient: Client {
    associatedtype StateUpdate: Sendable

    /// The fan-out of this client's updates. Publish with
    /// `stateBroadcaster.publish(_:)` after each change.
    nonisolated var stateBroadcaster: StateBroadcaster<StateUpdate> { get }
}

extension PublishingClient {
    /// A new stream for one observer. Every access makes a new observer with
    /// its own bounded buffer; see ``StateBroadcaster``.
    public nonisolated var stateUpdates: AsyncStream<StateUpdate> {
        stateBroadcaster.subscribe()
    }

    /// Observers currently attached to this client's updates.
    public nonisolated var liveObserverCount: Int {
        stateBroadcaster.observerCount
    }
}

/// RFC-001 1.3: a client that owns exactly one ``State`` (2.7, 2.13) and
/// publishes its changes.
public protocol StatefulClient: PublishingClient {
    associatedtype State: Sendable & Equatable

    /// The current snapshot (`await client.state` from outside the actor).
    var state: State { get }
}

/// RFC-001 1.4: pure computation over capabilities; owns no state.
public protocol StatelessClient: Client {}
