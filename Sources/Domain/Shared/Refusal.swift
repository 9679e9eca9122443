/// A domain rule refusing something, in terms the caller is answered in:
/// a stable machine `code` (the API's problem `code`), the `category` of
/// the refusal (it decides the status), a `message` safe to show, and any
/// extra members of the problem object. Each feature declares its own
/// refusals beside its values (`CartError`, `OrderError`, `EntityError`, …)
/// and the presentation renders anything conforming in one place, so a new
/// kind of refusal is a case or a type in its feature and nothing else.
public protocol Refusal: Error, Sendable, CustomStringConvertible {
    var code: String { get }
    var category: RefusalCategory { get }
    /// A human message; safe to show to the caller (no secrets, no other
    /// user's data beyond the ids the caller supplied).
    var message: String { get }
    /// When waiting this long can make the same request succeed (the
    /// answer's `Retry-After`); nil when waiting alone does not.
    var retryAfterSeconds: Int? { get }
    /// Members of the problem object beside `code` and `detail`.
    var members: [ProblemMember] { get }
}

extension Refusal {
    public var retryAfterSeconds: Int? { nil }
    public var members: [ProblemMember] { [] }
    public var description: String { "\(code): \(message)" }
}
