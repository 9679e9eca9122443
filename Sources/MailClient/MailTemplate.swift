/// One template file, parsed once: text with `{{name}}` (escaped for the
/// part it is in), `{{{name}}}` (as it is), `{{#name}}…{{/name}}` (once
/// per item of a list, or once if the value is truthy, with the value as
/// the innermost context), `{{^name}}…{{/name}}` (only when it is not)
/// and `{{! comments }}`. Names are dotted paths (`order.total.amount`) or
/// `.`, the innermost value; the first step is looked up from the
/// innermost context outward, as Mustache does.
struct MailTemplate: Sendable, Hashable {
    indirect enum Node: Sendable, Hashable {
        case text(String)
        case value([Substring], escaped: Bool)
        case section([Substring], inverted: Bool, [Node])
    }

    let nodes: [Node]

    /// `name` says which file a syntax error is in.
    init(parsing text: String, name: String) throws(MailTemplateError) {
        var rest = Substring(text)
        var stack: [(path: [Substring], inverted: Bool, nodes: [Node])] = [([], false, [])]
        while let open = rest.firstRange(of: "{{") {
            if open.lowerBound > rest.startIndex { stack[stack.count - 1].nodes.append(.text(String(rest[..<open.lowerBound]))) }
            let triple = rest[open.upperBound...].hasPrefix("{")
            let closing = triple ? "}}}" : "}}"
            let tagStart = triple ? rest.index(after: open.upperBound) : open.upperBound
            guard let close = rest[tagStart...].firstRange(of: closing) else {
                throw MailTemplateError(template: name, detail: "a tag opened with {{ is never closed")
            }
            let tag = rest[tagStart..<close.lowerBound].trimmingSpaces
            rest = rest[close.upperBound...]
            guard let sigil = tag.first else { throw MailTemplateError(template: name, detail: "an empty tag") }
            if triple {
                stack[stack.count - 1].nodes.append(.value(Self.path(tag), escaped: false))
                continue
            }
            switch sigil {
            case "!":
                continue
            case "#", "^":
                stack.append((Self.path(tag.dropFirst().trimmingSpaces), sigil == "^", []))
            case "/":
                let path = Self.path(tag.dropFirst().trimmingSpaces)
                guard stack.count > 1, let section = stack.last, section.path == path else {
                    throw MailTemplateError(template: name, detail: "{{/\(path.joined(separator: "."))}} closes no open section")
                }
                stack.removeLast()
                stack[stack.count - 1].nodes.append(.section(section.path, inverted: section.inverted, section.nodes))
            default:
                stack[stack.count - 1].nodes.append(.value(Self.path(tag), escaped: true))
            }
        }
        if !rest.isEmpty { stack[stack.count - 1].nodes.append(.text(String(rest))) }
        guard stack.count == 1 else {
            throw MailTemplateError(template: name,
                                    detail: "{{#\(stack[stack.count - 1].path.joined(separator: "."))}} is never closed")
        }
        nodes = stack[0].nodes
    }

    private static func path(_ tag: Substring) -> [Substring] {
        tag == "." ? [] : tag.split(separator: ".", omittingEmptySubsequences: false)
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }
}
