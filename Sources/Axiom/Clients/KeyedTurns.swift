/// Turns per key, first come first served: the bookkeeping of an actor that
/// must run one key's changes one after another (each from what the
/// previous one committed) while different keys run at once. The actor
/// awaits its turn itself:
///
///     if !turns.enter(key) { await withCheckedContinuation { turns.wait($0, for: key) } }
///     defer { turns.leave(key) }
///
/// Why the carts and users clients need it: an actor is re-entered while a
/// write awaits the disk, so without turns two requests for one cart both
/// started from the same cart and the second stored it without the first's
/// line; and a working set filled by a read that began before a commit and
/// landed after it would keep the old row.
public struct KeyedTurns<Key: Hashable & Sendable>: Sendable {
    private var waiting: [Key: [CheckedContinuation<Void, Never>]] = [:]

    public init() {}

    /// Takes the key's turn if nobody holds it; false means wait.
    public mutating func enter(_ key: Key) -> Bool {
        guard waiting[key] == nil else { return false }
        waiting[key] = []
        return true
    }

    /// Queues a waiter; it is resumed holding the turn.
    public mutating func wait(_ continuation: CheckedContinuation<Void, Never>, for key: Key) {
        waiting[key, default: []].append(continuation)
    }

    /// Hands the key's turn to the next waiter, or frees it.
    public mutating func leave(_ key: Key) {
        guard var queue = waiting[key], !queue.isEmpty else {
            waiting[key] = nil
            return
        }
        let next = queue.removeFirst()
        waiting[key] = queue
        next.resume()
    }
}
