import HTTPServer

/// Compact JSON whose object members come out in the order the value's
/// `encode(to:)` writes them: the declaration order of a synthesized
/// `Codable` type, the written order of a hand-made one. Issue 14 asks for
/// readable documents, `id` first, fields as `openapi.yaml` lists them, the
/// same on every response (`JSONFieldOrderTests` checks each schema).
/// Foundation's JSONEncoder keeps members in a hash table: without
/// `sortedKeys` two encodings of one value differed at byte 3, and sorted
/// keys put `id` wherever the alphabet does. Here the order is a property of
/// the code, so the bytes (and the strong ETag hashed from them) are stable.
///
/// A `Dictionary` has no order of its own: its members are sorted by key.
/// Scalars are written as JSONEncoder writes them: strings escaped by
/// `JSONString` (slashes unescaped), integers in decimal, finite floating
/// point numbers in Swift's shortest round-trip form.
struct OrderedJSONEncoder {
    func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let root = Node()
        try value.encode(to: NodeEncoder(node: root, codingPath: []))
        var text = ""
        text.reserveCapacity(256)
        root.write(to: &text)
        return Array(text.utf8)
    }

    /// One JSON value being built. A class: containers handed out by an
    /// encoder write into it after the encoder call returned.
    final class Node {
        enum Content {
            case empty
            case scalar(String)
            case object([(String, Node)], sorted: Bool)
            case array([Node])
        }
        var content = Content.empty

        func makeObject(sorted: Bool) {
            if case .object = content { return }
            content = .object([], sorted: sorted)
        }

        func makeArray() {
            if case .array = content { return }
            content = .array([])
        }

        /// The member `key`, made (at the end) if it is not there yet.
        func member(_ key: String) -> Node {
            guard case .object(var members, let sorted) = content else { preconditionFailure("not an object") }
            if let existing = members.first(where: { $0.0 == key }) { return existing.1 }
            let node = Node()
            content = .empty
            members.append((key, node))
            content = .object(members, sorted: sorted)
            return node
        }

        func appendElement() -> Node {
            guard case .array(var elements) = content else { preconditionFailure("not an array") }
            let node = Node()
            content = .empty
            elements.append(node)
            content = .array(elements)
            return node
        }

        var count: Int {
            switch content {
            case .object(let members, _): members.count
            case .array(let elements): elements.count
            case .empty, .scalar: 0
            }
        }

        func write(to text: inout String) {
            switch content {
            case .empty: text += "{}"
            case .scalar(let literal): text += literal
            case .object(let members, let sorted):
                text += "{"
                for (index, member) in (sorted ? members.sorted { $0.0 < $1.0 } : members).enumerated() {
                    if index > 0 { text += "," }
                    JSONString.append(member.0, to: &text)
                    text += ":"
                    member.1.write(to: &text)
                }
                text += "}"
            case .array(let elements):
                text += "["
                for (index, element) in elements.enumerated() {
                    if index > 0 { text += "," }
                    element.write(to: &text)
                }
                text += "]"
            }
        }
    }

    struct NodeEncoder: Encoder {
        let node: Node
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            // Dictionary's keys are its own internal CodingKey type.
            node.makeObject(sorted: String(describing: Key.self).contains("DictionaryCodingKey"))
            return KeyedEncodingContainer(Keyed<Key>(node: node, codingPath: codingPath))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            node.makeArray()
            return Unkeyed(node: node, codingPath: codingPath)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            Single(node: node, codingPath: codingPath)
        }
    }

    static func literal(_ text: String) -> String {
        var json = ""
        JSONString.append(text, to: &json)
        return json
    }

    static func literal<F: BinaryFloatingPoint & LosslessStringConvertible>(_ number: F, _ codingPath: [any CodingKey]) throws -> String {
        guard number.isFinite else {
            throw EncodingError.invalidValue(number, .init(codingPath: codingPath, debugDescription: "\(number) is not a JSON number"))
        }
        let text = number.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    /// Encodes `value` into `node`: scalars directly, anything else through
    /// its own `encode(to:)`.
    static func encode<T: Encodable>(_ value: T, into node: Node, codingPath: [any CodingKey]) throws {
        switch value {
        case let text as String: node.content = .scalar(literal(text))
        case let flag as Bool: node.content = .scalar(flag ? "true" : "false")
        case let number as Double: node.content = .scalar(try literal(number, codingPath))
        case let number as Float: node.content = .scalar(try literal(number, codingPath))
        default: try value.encode(to: NodeEncoder(node: node, codingPath: codingPath))
        }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: Node
        let codingPath: [any CodingKey]

        mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).content = .scalar("null") }
        mutating func encode(_ value: Bool, forKey key: Key) throws {
            node.member(key.stringValue).content = .scalar(value ? "true" : "false")
        }
        mutating func encode(_ value: String, forKey key: Key) throws {
            node.member(key.stringValue).content = .scalar(OrderedJSONEncoder.literal(value))
        }
        mutating func encode(_ value: Int, forKey key: Key) throws { node.member(key.stringValue).content = .scalar(String(value)) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { node.member(key.stringValue).content = .scalar(String(value)) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { node.member(key.stringValue).content = .scalar(String(value)) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { node.member(key.stringValue).content = .scalar(String(value)) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { node.member(key.stringValue).content = .scalar(String(value)) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { node.member(key.stringValue).content = .scalar(String(value)) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { node.member(key.stringValue).content = .scalar(String(value)) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { node.member(key.stringValue).content = .scalar(String(value)) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { node.member(key.stringValue).content = .scalar(String(value)) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { node.member(key.stringValue).content = .scalar(String(value)) }
        mutating func encode(_ value: Double, forKey key: Key) throws {
            node.member(key.stringValue).content = .scalar(try OrderedJSONEncoder.literal(value, codingPath + [key]))
        }
        mutating func encode(_ value: Float, forKey key: Key) throws {
            node.member(key.stringValue).content = .scalar(try OrderedJSONEncoder.literal(value, codingPath + [key]))
        }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try OrderedJSONEncoder.encode(value, into: node.member(key.stringValue), codingPath: codingPath + [key])
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                            forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            NodeEncoder(node: node.member("super"), codingPath: codingPath)
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
        }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]
        var count: Int { node.count }

        mutating func encodeNil() throws { node.appendElement().content = .scalar("null") }
        mutating func encode(_ value: Int) throws { node.appendElement().content = .scalar(String(value)) }
        mutating func encode(_ value: Int8) throws { node.appendElement().content = .scalar(String(value)) }
        mutating func encode(_ value: Int16) throws { node.appendElement().content = .scalar(String(value)) }
        mutating func encode(_ value: Int32) throws { node.appendElement().content = .scalar(String(value)) }
        mutating func encode(_ value: Int64) throws { node.appendElement().content = .scalar(String(value)) }
        mutating func encode(_ value: UInt) throws { node.appendElement().content = .scalar(String(value)) }
        mutating func encode(_ value: UInt8) throws { node.appendElement().content = .scalar(String(value)) }
        mutating func encode(_ value: UInt16) throws { node.appendElement().content = .scalar(String(value)) }
        mutating func encode(_ value: UInt32) throws { node.appendElement().content = .scalar(String(value)) }
        mutating func encode(_ value: UInt64) throws { node.appendElement().content = .scalar(String(value)) }
        mutating func encode(_ value: Bool) throws { node.appendElement().content = .scalar(value ? "true" : "false") }
        mutating func encode(_ value: String) throws { node.appendElement().content = .scalar(OrderedJSONEncoder.literal(value)) }
        mutating func encode(_ value: Double) throws { node.appendElement().content = .scalar(try OrderedJSONEncoder.literal(value, codingPath)) }
        mutating func encode(_ value: Float) throws { node.appendElement().content = .scalar(try OrderedJSONEncoder.literal(value, codingPath)) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            try OrderedJSONEncoder.encode(value, into: node.appendElement(), codingPath: codingPath)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            NodeEncoder(node: node.appendElement(), codingPath: codingPath).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            NodeEncoder(node: node.appendElement(), codingPath: codingPath).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            NodeEncoder(node: node.appendElement(), codingPath: codingPath)
        }
    }

    struct Single: SingleValueEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws { node.content = .scalar("null") }
        mutating func encode(_ value: Bool) throws { node.content = .scalar(value ? "true" : "false") }
        mutating func encode(_ value: String) throws { node.content = .scalar(OrderedJSONEncoder.literal(value)) }
        mutating func encode(_ value: Int) throws { node.content = .scalar(String(value)) }
        mutating func encode(_ value: Int8) throws { node.content = .scalar(String(value)) }
        mutating func encode(_ value: Int16) throws { node.content = .scalar(String(value)) }
        mutating func encode(_ value: Int32) throws { node.content = .scalar(String(value)) }
        mutating func encode(_ value: Int64) throws { node.content = .scalar(String(value)) }
        mutating func encode(_ value: UInt) throws { node.content = .scalar(String(value)) }
        mutating func encode(_ value: UInt8) throws { node.content = .scalar(String(value)) }
        mutating func encode(_ value: UInt16) throws { node.content = .scalar(String(value)) }
        mutating func encode(_ value: UInt32) throws { node.content = .scalar(String(value)) }
        mutating func encode(_ value: UInt64) throws { node.content = .scalar(String(value)) }
        mutating func encode(_ value: Float) throws { node.content = .scalar(try OrderedJSONEncoder.literal(value, codingPath)) }
        mutating func encode(_ value: Double) throws { node.content = .scalar(try OrderedJSONEncoder.literal(value, codingPath)) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            try OrderedJSONEncoder.encode(value, into: node, codingPath: codingPath)
        }
    }
}
