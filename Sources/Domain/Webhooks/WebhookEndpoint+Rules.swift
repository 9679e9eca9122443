/// The checks an endpoint's submitted fields pass, shared by the draft and
/// the patch: every failing field is collected, none stops the others.
extension WebhookEndpoint {
    /// The URL as text: required, at most `maxURLLength` bytes, printable
    /// ASCII without spaces (an international name in its `xn--` form).
    /// Whether it parses, its scheme and where it points are the webhooks
    /// client's checks (`urlProblem`), added here as one more failing field.
    static func checkURL(_ url: String, urlProblem: (String) -> String?, into errors: inout ValidationError) {
        if url.isEmpty {
            errors.add("url", .required, "url is required")
        } else if url.utf8.count > maxURLLength {
            errors.add("url", .tooLong, "url must be at most \(maxURLLength) bytes")
        } else if !url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
            errors.add("url", .invalidFormat,
                       "url must be printable ASCII without spaces (write an international name in its xn-- form)")
        } else if let problem = urlProblem(url) {
            errors.add("url", .invalidFormat, problem)
        }
    }

    /// The types named, each once, in `WebhookEventType`'s order; an unknown
    /// name fails as `event_types[i]`.
    static func eventTypes(_ names: [String], into errors: inout ValidationError) -> [WebhookEventType] {
        var named = Set<WebhookEventType>()
        for (index, name) in names.enumerated() {
            guard let type = WebhookEventType(rawValue: name) else {
                errors.add("event_types[\(index)]", .invalidFormat, "\(name.prefix(100)) is not an event type; one of "
                    + WebhookEventType.allCases.map(\.rawValue).joined(separator: ", "))
                continue
            }
            named.insert(type)
        }
        return WebhookEventType.allCases.filter(named.contains)
    }

    /// Free text for admins, at most `maxDescriptionLength` characters.
    static func checkDescription(_ text: String, into errors: inout ValidationError) {
        TextRules.checkText(text, field: "description", max: maxDescriptionLength, into: &errors)
    }

    static func normalizedDescription(_ text: String) -> String {
        TextRules.normalized(text, maxCharacters: maxDescriptionLength)
    }
}
