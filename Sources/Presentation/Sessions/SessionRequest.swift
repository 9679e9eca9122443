import Contexts
import HTTPServer

/// A signed-in request as a session route group's handler sees it: the
/// HTTP request and the session's feature context of the group's type,
/// which knows who is calling.
public struct SessionRequest<Bound: Sendable>: Sendable {
    public let http: HTTPRequest
    public let context: Bound
}
