import Axiom
import Contexts
import Domain
import HTTPServer

/// Binds a session route group's handlers to its context type: each
/// request is authenticated once, enters the session's context of type
/// `Bound` (made on first use, below the session's root). What it throws
/// renders itself (`HTTPResponseError`).
public struct SessionBinding<Bound: Context>: Sendable {
    let gate: SessionGate

    public init(_ type: Bound.Type = Bound.self, gate: SessionGate) {
        self.gate = gate
    }

    public func handler(_ body: @escaping @Sendable (SessionRequest<Bound>) async throws -> HTTPResponse) -> HTTPHandler {
        { [gate] request in
            try await gate.withSession(request) { root, caller in
                try await body(SessionRequest(http: request, context: try await root.feature(Bound.self, for: caller),
                                              caller: caller))
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
            let (use, caller, rate) = try await gate.beginUse(request)
            do {
                let context = try await use.context.feature(Bound.self, for: caller)
                return gate.userLimit.decorate(
                    try await body(SessionRequest(http: request, context: context, caller: caller), use), rate)
            } catch {
                use.end()
                throw error
            }
        }
    }

    /// A one-use ticket that opens `caller`'s session's live stream.
    public func issueEventTicket(for caller: SessionRequest<Bound>) async throws -> EventTicket {
        try await gate.issueEventTicket(caller.http)
    }

    /// Ends the caller's session here (sign-out): its contexts are released.
    public func endSession(of caller: SessionRequest<Bound>) async {
        await gate.end(sessionID: caller.caller.sessionID)
    }
}
