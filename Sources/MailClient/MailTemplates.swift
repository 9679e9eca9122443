import FoundationEssentials

/// Every mail's templates, read and parsed once at start-up from the
/// shipped directory (`config/mail`), each file replaced by the same path
/// in the operator's directory when it has one: an operator overrides one
/// mail, or one part of it, without copying the rest. A template missing
/// a part, or one that does not parse, stops the start.
public struct MailTemplates: Sendable {
    private let sets: [String: MailTemplateSet]

    /// The names found, e.g. `order/placed` for `order/placed.subject`.
    public var names: [String] { sets.keys.sorted() }

    /// No templates: a service whose mail is off renders nothing.
    public init() {
        sets = [:]
    }

    public init(directory: String, overrides: String? = nil) throws(MailTemplateError) {
        let files = FileManager.default
        let listed: [String]
        do {
            listed = try files.subpathsOfDirectory(atPath: directory)
        } catch {
            throw MailTemplateError(template: directory, detail: "the templates directory cannot be read")
        }
        var sets: [String: MailTemplateSet] = [:]
        for path in listed where path.hasSuffix(".subject") {
            let name = String(path.dropLast(".subject".count))
            func part(_ suffix: String) throws(MailTemplateError) -> MailTemplate {
                let relative = name + suffix
                let chosen = overrides.map { "\($0)/\(relative)" }.flatMap { files.fileExists(atPath: $0) ? $0 : nil }
                    ?? "\(directory)/\(relative)"
                guard let data = files.contents(atPath: chosen), let text = String(validating: data, as: UTF8.self) else {
                    throw MailTemplateError(template: relative, detail: "\(chosen) cannot be read as UTF-8")
                }
                return try MailTemplate(parsing: text, name: relative)
            }
            sets[name] = MailTemplateSet(subject: try part(".subject"), text: try part(".txt"), html: try part(".html"))
        }
        self.sets = sets
    }

    /// `name` rendered with `values`; a name with no templates is a
    /// `MailTemplateError` (final for the mail's job).
    public func render(_ name: String, _ values: TemplateValue) throws(MailTemplateError) -> RenderedMail {
        guard let set = sets[name] else { throw MailTemplateError(template: name, detail: "no such mail template") }
        return set.render(values)
    }
}
