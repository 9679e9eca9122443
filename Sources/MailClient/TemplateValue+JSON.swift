import Formats

extension TemplateValue {
    /// The tree of a JSON text; nil when it is not JSON.
    public init?(json bytes: [UInt8]) {
        let value: TemplateValue? = bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(buffer)
            reader.skipWhitespace()
            guard let value = Self.read(&reader) else { return nil }
            reader.skipWhitespace()
            return reader.isAtEnd ? value : nil
        }
        guard let value else { return nil }
        self = value
    }

    private static func read(_ reader: inout JSONReader) -> TemplateValue? {
        switch reader.current {
        case UInt8(ascii: "{"):
            var members: [String: TemplateValue] = [:]
            let read = reader.object { reader, name in
                guard let value = Self.read(&reader) else { return false }
                members[String(decoding: name, as: UTF8.self)] = value
                return true
            }
            return read ? .object(members) : nil
        case UInt8(ascii: "["):
            var items: [TemplateValue] = []
            let read = reader.array { reader in
                guard let value = Self.read(&reader) else { return false }
                items.append(value)
                return true
            }
            return read ? .array(items) : nil
        case UInt8(ascii: "\""):
            return reader.string().map(TemplateValue.string)
        case UInt8(ascii: "t"):
            return reader.literal("true") ? .bool(true) : nil
        case UInt8(ascii: "f"):
            return reader.literal("false") ? .bool(false) : nil
        case UInt8(ascii: "n"):
            return reader.literal("null") ? .null : nil
        default:
            let start = reader.index
            guard reader.number() != nil else { return nil }
            return .number(String(decoding: UnsafeBufferPointer(rebasing: reader.bytes[start..<reader.index]),
                                  as: UTF8.self))
        }
    }
}
