import Axiom
import Domain

/// A context of one session's graph: it reads who is calling from the
/// session (`caller`), and may refuse callers it is not for. A route group
/// of signed-in requests binds to one (`SessionBinding`).
public protocol SessionFeature: Context {
    /// The session's caller, shared by every context of the session.
    var caller: SessionCaller { get }

    /// Why `caller` may not use this feature, checked as each request
    /// enters it (nil: anyone signed in may).
    static func refusal(of caller: Authentication) -> (any Error)?
}

extension SessionFeature {
    public static func refusal(of caller: Authentication) -> (any Error)? { nil }
}
