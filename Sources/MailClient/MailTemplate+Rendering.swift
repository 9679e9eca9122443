extension MailTemplate {
    /// How a `{{name}}` is written into the part.
    enum Escaping: Sendable {
        /// The plain text part and the subject: as it is.
        case none
        /// The HTML part: `& < > " '` as character references.
        case html
    }

    func render(_ value: TemplateValue, escaping: Escaping) -> String {
        var output = ""
        Self.render(nodes, contexts: [value], escaping: escaping, into: &output)
        return output
    }

    private static func render(_ nodes: [Node], contexts: [TemplateValue], escaping: Escaping, into output: inout String) {
        for node in nodes {
            switch node {
            case .text(let text):
                output += text
            case .value(let path, let escaped):
                let text = lookup(path, in: contexts)?.text ?? ""
                output += escaped && escaping == .html ? html(text) : text
            case .section(let path, let inverted, let children):
                let value = lookup(path, in: contexts) ?? .null
                if inverted {
                    if !value.isTruthy { render(children, contexts: contexts, escaping: escaping, into: &output) }
                } else if case .array(let items) = value {
                    for item in items { render(children, contexts: contexts + [item], escaping: escaping, into: &output) }
                } else if value.isTruthy {
                    render(children, contexts: contexts + [value], escaping: escaping, into: &output)
                }
            }
        }
    }

    private static func lookup(_ path: [Substring], in contexts: [TemplateValue]) -> TemplateValue? {
        guard let first = path.first else { return contexts.last }
        for context in contexts.reversed() {
            if case .object(let members) = context, members[String(first)] != nil {
                return context.value(at: path)
            }
        }
        return nil
    }

    static func html(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
