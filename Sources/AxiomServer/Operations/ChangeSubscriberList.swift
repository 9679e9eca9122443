import Capabilities
import Synchronization

/// The clients the change feed keeps coherent, collected as the
/// orchestrator's factories make them (the composition root sees no other
/// way to the singletons), subscribed once the feed exists.
final class ChangeSubscriberList: Sendable {
    private let subscribers = Mutex<[any ChangeSubscriber]>([])

    /// Records `client` and hands it back, for use inside a factory.
    func adding<C: ChangeSubscriber>(_ client: C) -> C {
        subscribers.withLock { $0.append(client) }
        return client
    }

    var all: [any ChangeSubscriber] { subscribers.withLock { $0 } }
}
