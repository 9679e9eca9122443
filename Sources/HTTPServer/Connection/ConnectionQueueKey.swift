import Dispatch

/// Marks a connection's queue so code can tell whether it already runs there.
enum ConnectionQueueKey {
    static let key = DispatchSpecificKey<ObjectIdentifier>()
}
