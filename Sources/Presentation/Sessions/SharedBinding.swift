import Axiom
import HTTPServer

/// Binds an anonymous route group's handlers to its one process-wide
/// context (the storefront, registration). What they throw renders itself
/// (`HTTPResponseError`).
public struct SharedBinding<Bound: Context>: Sendable {
    public let context: Bound

    public init(_ context: Bound) {
        self.context = context
    }

    public func handler(_ body: @escaping @Sendable (HTTPRequest, Bound) async throws -> HTTPResponse) -> HTTPHandler {
        { [context] request in
            try await body(request, context)
        }
    }
}
