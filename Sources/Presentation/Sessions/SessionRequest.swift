import Contexts
import Domain
import HTTPServer

/// A signed-in request as a session route group's handler sees it: the
/// HTTP request, the session's context of the group's type, and who is
/// signed in.
public struct SessionRequest<Bound: Sendable>: Sendable {
    public let http: HTTPRequest
    public let context: Bound
    public let caller: Authentication
}
