import Axiom
import Contexts
import Domain
import HTTPServer

/// Binds a session route group's handlers to its feature context type:
/// each request passes the session gate once and gets the session's
/// context of type `Bound` (made on first use, below the session's root).
/// What it throws renders itself (`HTTPResponseError`).
public struct SessionBinding<Bound: SessionFeature>: Sendable {
    let gate: SessionGate

    public init(_ type: Bound.Type = Bound.self, gate: SessionGate) {
        self.gate = gate
    }

    public func handler(_ body: @escaping @Sendable (SessionRequest<Bound>) async throws -> HTTPResponse) -> HTTPHandler {
        { [gate] request in
            try await gate.enter(request, Bound.self) { feature in
                try await body(SessionRequest(http: request, context: feature))
            }
        }
    }

    /// For a response that keeps streaming after the handler returns: the
    /// session stays in use until `body`'s response ends the use it is
    /// given (or, if `body` throws, at once).
    public func streamHandler(
        _ body: @escaping @Sendable (SessionRequest<Bound>, SessionUse<SessionContext>) async throws -> HTTPResponse
    ) -> HTTPHandler {
        { [gate] request in
            let (use, feature, rate) = try await gate.beginUse(request, Bound.self)
            do {
                return gate.userLimit.decorate(try await body(SessionRequest(http: request, context: feature), use), rate)
            } catch {
                use.end()
                throw error
            }
        }
    }

    /// A one-use ticket that opens the request's session's live stream.
    public func issueEventTicket(for request: SessionRequest<Bound>) async throws -> EventTicket {
        try await gate.issueEventTicket(request.http)
    }

    /// Ends a session here (sign-out): its contexts are released.
    public func endSession(_ sessionID: String) async {
        await gate.end(sessionID: sessionID)
    }
}
