import FoundationEssentials
import Synchronization

/// Encoded JSON of values read far more often than they change (a product
/// page is read thousands of times between two edits). An entry is reused
/// only while the value is *equal* to the one it was encoded from, so a
/// changed product can never be served stale; comparing two values is far
/// cheaper than encoding one. Bounded: when full, it starts over rather
/// than grow.
public final class RepresentationCache<Key: Hashable & Sendable, Value: Equatable & Encodable & Sendable>: Sendable {
    private let entries = Mutex<[Key: (value: Value, bytes: [UInt8])]>([:])
    private let capacity: Int

    public init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    public func bytes(for key: Key, value: Value) throws -> [UInt8] {
        if let cached = entries.withLock({ $0[key] }), cached.value == value {
            return cached.bytes
        }
        // The same bytes (and so the same ETag) as every other encoding of it.
        let bytes = try JSONBody.encode(value)
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = (value, bytes)
        }
        return bytes
    }

    public var count: Int { entries.withLock { $0.count } }
}
