/// An extra member of a refusal's problem object, beside `code` and
/// `detail`: its name and a value the presentation knows how to write.
public enum ProblemMember: Hashable, Sendable {
    /// A list of failing fields, each `{field, code, message}`.
    case fieldErrors(name: String, [FieldError])
}
