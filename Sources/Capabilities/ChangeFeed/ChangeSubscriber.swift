/// A working set kept coherent by the change feed: a stateful client
/// subscribes for its kinds and applies other processes' changes to what it
/// holds (evict or refresh), then publishes to its observers as a local
/// change does.
public protocol ChangeSubscriber: AnyObject, Sendable {
    /// The kinds this subscriber applies; others are not handed to it.
    nonisolated var changeKinds: Set<ChangeKind> { get }
    /// Applies a change another process committed.
    func apply(_ change: Change) async
    /// The follower could not tell what changed (it fell behind the outbox's
    /// retention): forget everything cached.
    func resynchronize() async
}
