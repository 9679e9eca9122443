/// An ordered list of header fields. Repeated fields are kept in order;
/// lookup is case-insensitive (field names are ASCII tokens, RFC 9110 5.1).
/// Names parsed from requests are stored lowercased, so lookups by a
/// lowercase literal compare bytes directly.
public struct HTTPFields: Sendable, Sequence {
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    private var fields: [Field]

    public init() { fields = [] }

    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The first value of `name`, or nil.
    public subscript(name: String) -> String? {
        fields.first { Self.namesMatch($0.name, name) }?.value
    }

    /// Every value of `name`, in the order received.
    public func values(for name: String) -> [String] {
        fields.compactMap { Self.namesMatch($0.name, name) ? $0.value : nil }
    }

    public func contains(_ name: String) -> Bool {
        fields.contains { Self.namesMatch($0.name, name) }
    }

    public mutating func append(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field called `name` by one with `value`.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        append(name, value)
    }

    public mutating func reserveCapacity(_ count: Int) { fields.reserveCapacity(count) }

    public mutating func remove(_ name: String) {
        fields.removeAll { Self.namesMatch($0.name, name) }
    }

    /// Over the names' contiguous bytes: the exchange policies look up
    /// half a dozen names per response (`traceparent`, `accept-encoding`,
    /// `if-none-match`, `etag`, `cache-control`, `content-type`), and
    /// zipping the two UTF-8 views is dearer than comparing bytes.
    static func namesMatch(_ a: String, _ b: String) -> Bool {
        let x = a.utf8, y = b.utf8
        guard x.count == y.count else { return false }
        let contiguous = x.withContiguousStorageIfAvailable { left in
            y.withContiguousStorageIfAvailable { right in
                for index in 0..<left.count where ASCII.lowercased(left[index]) != ASCII.lowercased(right[index]) {
                    return false
                }
                return true
            }
        }
        if let result = contiguous ?? nil { return result }
        return zip(x, y).allSatisfy { ASCII.lowercased($0) == ASCII.lowercased($1) }
    }
}

extension HTTPFields: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }
}
