import FoundationEssentials

extension TemplateValue: Decodable {
    /// The tree of a JSON text; nil when it is not JSON.
    public init?(json bytes: [UInt8]) {
        guard let value = try? JSONDecoder().decode(TemplateValue.self, from: Data(bytes)) else { return nil }
        self = value
    }

    public init(from decoder: any Decoder) throws {
        if var list = try? decoder.unkeyedContainer() {
            var items: [TemplateValue] = []
            while !list.isAtEnd { items.append(try list.decode(TemplateValue.self)) }
            self = .array(items)
            return
        }
        if let object = try? decoder.container(keyedBy: MemberName.self) {
            var members: [String: TemplateValue] = [:]
            for key in object.allKeys { members[key.stringValue] = try object.decode(TemplateValue.self, forKey: key) }
            self = .object(members)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let flag = try? single.decode(Bool.self) {
            self = .bool(flag)
        } else if let integer = try? single.decode(Int64.self) {
            self = .number(String(integer))
        } else if let number = try? single.decode(Double.self) {
            self = .number(String(number))
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    private struct MemberName: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }
}
