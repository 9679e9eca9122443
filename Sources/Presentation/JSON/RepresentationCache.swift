import Axiom
import FoundationEssentials
import HTTPServer

/// Encoded JSON of values read far more often than they change (a product
/// page is read thousands of times between two edits), kept with its strong
/// `ETag` and its response fields. An entry is reused only while the value
/// is *equal* to the one it was encoded from, so a changed product can never
/// be served stale; comparing two values is far cheaper than encoding one.
/// Bounded by a `WorkingSet` (CLOCK): when full, an entry not read since
/// the hand last passed makes room, so the products a shop's visitors keep
/// opening stay encoded (starting over when full would throw the popular
/// products' JSON away with the rest every `capacity` misses).
/// Once full, a value encoded for the first time takes a place only on its
/// second request (`WorkingSet.admit`).
public final class RepresentationCache<Key: Hashable & Sendable, Value: Equatable & Encodable & Sendable>: Sendable {
    struct Entry: Sendable {
        let value: Value
        let bytes: [UInt8]
        /// Content-Type and ETag, with room for what the exchange policies
        /// add: the tag is hashed once per representation rather than once
        /// per response, and no response allocates its tag's string.
        let fields: HTTPFields
    }

    /// Split by key, each shard with its share of the capacity: every read
    /// of a product page from every event loop looks here.
    private let shards: LockShards<WorkingSet<Key, Entry>>
    private let encode: @Sendable (Value) throws -> [UInt8]

    /// `encode`: how a value becomes bytes; `JSONBody.encode` (fields in
    /// the document's order) unless the route has a hand-written document
    /// (`ProductJSON`), which must write the same bytes.
    public init(capacity: Int = 100_000, encode: (@Sendable (Value) throws -> [UInt8])? = nil) {
        let count = max(1, min(16, capacity / 256))
        let each = (max(1, capacity) + count - 1) / count
        shards = LockShards(count: count) { WorkingSet(capacity: each) }
        self.encode = encode ?? { try JSONBody.encode($0) }
    }

    /// A 200 with the value's JSON and its `ETag`.
    public func response(for key: Key, value: Value) throws -> HTTPResponse {
        let entry = try self.entry(for: key, value: value)
        return HTTPResponse(status: .ok, headers: entry.fields, body: .bytes(entry.bytes))
    }

    public func bytes(for key: Key, value: Value) throws -> [UInt8] {
        try entry(for: key, value: value).bytes
    }

    private func entry(for key: Key, value: Value) throws -> Entry {
        if let cached = shards.withLock(for: key, { $0.lookup(key) }), cached.value == value {
            return cached
        }
        // The same bytes (and so the same ETag) as every other encoding of it.
        let bytes = try encode(value)
        var fields = HTTPFields()
        fields.reserveCapacity(8)
        fields.append("Content-Type", "application/json; charset=utf-8")
        fields.append("ETag", EntityTag.of(bytes))
        let entry = Entry(value: value, bytes: bytes, fields: fields)
        // A value encoded once while the cache is full waits for its second
        // request to take a place (`WorkingSet.admit`).
        shards.withLock(for: key) { _ = $0.admit(entry, for: key) }
        return entry
    }

    public var count: Int { shards.map(\.count).reduce(0, +) }
}
