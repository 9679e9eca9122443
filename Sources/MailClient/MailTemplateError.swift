import Domain

/// A template that cannot be read or parsed. Found at start-up, when the
/// templates are loaded, so a broken override stops the process with this
/// message instead of failing each mail; as a job's error it is final.
public struct MailTemplateError: Error, PermanentFailure, CustomStringConvertible {
    public let template: String
    public let detail: String

    public var reason: String { "mail template \(template): \(detail)" }
    public var description: String { reason }
}
