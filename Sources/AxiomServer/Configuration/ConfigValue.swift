/// One raw setting value and where it came from, so that a refusal can name
/// both the key and the place the bad value was written.
struct ConfigValue {
    enum Payload {
        /// From the environment or a flag: always text, parsed by the setting.
        case text(String)
        /// From the configuration file: already typed by JSON.
        case json(JSONValue)
    }

    let payload: Payload
    /// e.g. `config file ./config/default.json`, `environment AXIOM_PORT`, `flag --port`.
    let source: String

    /// How the value reads in a message: text as written, JSON as JSON.
    var shown: String {
        switch payload {
        case .text(let text): "'\(text)'"
        case .json(let value): value.description
        }
    }
}

/// A JSON value as the configuration file holds it. Decoding keeps the kind
/// exact (an integer stays an integer, `true` never reads as 1), so a wrong
/// type can be refused instead of coerced.
enum JSONValue: Decodable, Equatable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer: "an integer"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    var description: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return String(value)
        case .integer(let value): return String(value)
        case .number(let value): return String(value)
        case .string(let value): return "\"\(value)\""
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
