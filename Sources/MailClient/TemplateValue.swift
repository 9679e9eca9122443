/// What a mail template is rendered with: a JSON document's tree (an order
/// as the API shows it, a user, links), read once per mail.
public indirect enum TemplateValue: Sendable, Hashable {
    case string(String)
    /// A number as its JSON text (`12`, `12.5`): shown as written.
    case number(String)
    case bool(Bool)
    case null
    case array([TemplateValue])
    case object([String: TemplateValue])

    /// The member at `path` (`order.total`), nil where a step is missing.
    func value(at path: [Substring]) -> TemplateValue? {
        var current = self
        for name in path {
            guard case .object(let members) = current, let next = members[String(name)] else { return nil }
            current = next
        }
        return current
    }

    /// Whether a section over this value renders: false, null, zero, an
    /// empty string or an empty list do not.
    var isTruthy: Bool {
        switch self {
        case .bool(let value): value
        case .null: false
        case .string(let text): !text.isEmpty
        case .array(let items): !items.isEmpty
        case .number(let text): Double(text) != 0
        case .object: true
        }
    }

    /// The text a `{{name}}` puts in place (lists and objects put nothing).
    var text: String {
        switch self {
        case .string(let text): text
        case .number(let text): text
        case .bool(let value): value ? "true" : "false"
        case .null, .array, .object: ""
        }
    }
}
