/// JSONDecoder with two rules more, for every request body at once:
/// - an object member the type being decoded does not name is refused
///   (`UnknownMembers`), as Stripe refuses an unknown parameter, so a
///   misspelt `payment_metod` or a `role` the body does not take is not
///   silently dropped and answered 2xx as if it had been understood. A
///   member is unknown when the type's `CodingKey` does not
///   accept its name (`Key(stringValue:)` is nil), so a type reading a
///   map (`[String: …]`, whose key accepts every name) still takes any.
/// - a string that is none of an enumeration's raw values names them all
///   (`payment_method must be one of: provider, bank_transfer`), for
///   every `CaseIterable` enumeration a body holds.
/// It wraps the decoder JSONDecoder hands each value's `init(from:)`, so
/// JSONDecoder's own parsing, coding paths and errors are unchanged.
struct StrictDecoded<Value: Decodable>: Decodable {
    let value: Value

    init(from decoder: any Decoder) throws {
        do {
            value = try Value(from: StrictDecoder(base: decoder))
        } catch DecodingError.dataCorrupted(let context)
            where context.codingPath.count == decoder.codingPath.count {
            guard let accepted = AcceptedValues.of(Value.self) else { throw DecodingError.dataCorrupted(context) }
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: context.codingPath,
                debugDescription: "\(JSONBody.path(context.codingPath)) must be one of: \(accepted.joined(separator: ", "))"))
        }
    }
}

/// Members of an object that its type does not name; `path` is the object's.
struct UnknownMembers: Error {
    let path: [any CodingKey]
    let names: [String]
}

/// The raw values of a `CaseIterable` enumeration with raw values, in
/// declaration order; nil for any other type.
enum AcceptedValues {
    static func of(_ type: Any.Type) -> [String]? {
        guard let enumeration = type as? any CaseIterable.Type else { return nil }
        return values(enumeration)
    }

    private static func values<E: CaseIterable>(_ type: E.Type) -> [String]? {
        let raw = E.allCases.compactMap { ($0 as? any RawRepresentable).map { "\($0.rawValue)" } }
        return raw.isEmpty ? nil : raw
    }
}

/// A body its sender may grow with members this server does not read: a
/// payment provider adds fields to its events at will, and refusing them
/// would make it retry a valid event for days. Decoded without the
/// unknown-member rule.
protocol ProviderJSONObject: Decodable {}

/// Any member name, to list an object's members before the type's own
/// key reads them.
struct AnyMemberKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

private func checkedKeyed<Key: CodingKey>(_ members: KeyedDecodingContainer<AnyMemberKey>,
                                          _ keyed: KeyedDecodingContainer<Key>) throws -> KeyedDecodingContainer<Key> {
    let unknown = members.allKeys.map(\.stringValue).filter { Key(stringValue: $0) == nil }
    guard unknown.isEmpty else { throw UnknownMembers(path: members.codingPath, names: unknown.sorted()) }
    return KeyedDecodingContainer(StrictKeyedContainer(base: keyed))
}

private struct StrictDecoder: Decoder {
    let base: any Decoder
    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try checkedKeyed(try base.container(keyedBy: AnyMemberKey.self), try base.container(keyedBy: type))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        StrictUnkeyedContainer(base: try base.unkeyedContainer())
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        StrictSingleValueContainer(base: try base.singleValueContainer())
    }
}

/// Strings, numbers and booleans are read as JSONDecoder reads them; every
/// other value goes through `StrictDecoded`, so its objects are checked too.
private struct StrictKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let base: KeyedDecodingContainer<Key>
    var codingPath: [any CodingKey] { base.codingPath }
    var allKeys: [Key] { base.allKeys }

    func contains(_ key: Key) -> Bool { base.contains(key) }
    func decodeNil(forKey key: Key) throws -> Bool { try base.decodeNil(forKey: key) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try base.decode(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try base.decode(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try base.decode(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try base.decode(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try base.decode(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try base.decode(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try base.decode(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try base.decode(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try base.decode(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try base.decode(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try base.decode(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try base.decode(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try base.decode(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try base.decode(type, forKey: key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try base.decode(StrictDecoded<T>.self, forKey: key).value
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type,
                                               forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try checkedKeyed(try base.nestedContainer(keyedBy: AnyMemberKey.self, forKey: key),
                         try base.nestedContainer(keyedBy: type, forKey: key))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        StrictUnkeyedContainer(base: try base.nestedUnkeyedContainer(forKey: key))
    }

    func superDecoder() throws -> any Decoder { StrictDecoder(base: try base.superDecoder()) }
    func superDecoder(forKey key: Key) throws -> any Decoder { StrictDecoder(base: try base.superDecoder(forKey: key)) }
}

private struct StrictUnkeyedContainer: UnkeyedDecodingContainer {
    var base: any UnkeyedDecodingContainer
    var codingPath: [any CodingKey] { base.codingPath }
    var count: Int? { base.count }
    var isAtEnd: Bool { base.isAtEnd }
    var currentIndex: Int { base.currentIndex }

    mutating func decodeNil() throws -> Bool { try base.decodeNil() }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try base.decode(type) }
    mutating func decode(_ type: String.Type) throws -> String { try base.decode(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try base.decode(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try base.decode(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try base.decode(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try base.decode(StrictDecoded<T>.self).value }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey> {
        // One element, read once: its members listed from a decoder of it.
        let element = try base.superDecoder()
        return try checkedKeyed(try element.container(keyedBy: AnyMemberKey.self), try element.container(keyedBy: type))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        StrictUnkeyedContainer(base: try base.nestedUnkeyedContainer())
    }

    mutating func superDecoder() throws -> any Decoder { StrictDecoder(base: try base.superDecoder()) }
}

private struct StrictSingleValueContainer: SingleValueDecodingContainer {
    let base: any SingleValueDecodingContainer
    var codingPath: [any CodingKey] { base.codingPath }

    func decodeNil() -> Bool { base.decodeNil() }
    func decode(_ type: Bool.Type) throws -> Bool { try base.decode(type) }
    func decode(_ type: String.Type) throws -> String { try base.decode(type) }
    func decode(_ type: Double.Type) throws -> Double { try base.decode(type) }
    func decode(_ type: Float.Type) throws -> Float { try base.decode(type) }
    func decode(_ type: Int.Type) throws -> Int { try base.decode(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try base.decode(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try base.decode(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try base.decode(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try base.decode(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try base.decode(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try base.decode(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try base.decode(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try base.decode(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try base.decode(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try base.decode(StrictDecoded<T>.self).value }
}
