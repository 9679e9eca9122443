/// A value as storage committed it: its key and the row version it was
/// read or written at (versions only grow).
public struct Versioned<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    public let key: Key
    public let value: Value
    public let version: Int64

    @inlinable
    public init(_ key: Key, _ value: Value, version: Int64) {
        self.key = key
        self.value = value
        self.version = version
    }
}

extension Versioned: Equatable where Value: Equatable {}
extension Versioned: Hashable where Value: Hashable {}
