/// One request and its response, reported once the response is fully
/// queued (or, for a streamed body, once the stream ended): what an access
/// log line and request metrics are made of. The server builds these only
/// when it was given an observer.
public struct CompletedExchange: Sendable {
    /// Nil when the server answered before a request head was understood
    /// (a malformed request line, a header timeout, the connection cap).
    public let method: HTTPMethod?
    /// The matched route pattern (`/products/{id}`), or "" when no route
    /// matched (404, 405, a malformed request): a label with few values,
    /// unlike the path.
    public let route: String
    public let status: HTTPStatus
    /// Body bytes sent (0 for HEAD, 204, 304).
    public let bodyBytes: Int
    /// From the complete request head to the response queued, in nanoseconds.
    public let durationNanoseconds: Int64
    public let requestID: String
    /// The trace context sent with the response, nil when there was no
    /// request head. Rendered only when asked (an access line): most
    /// exchanges are only counted.
    public let trace: TraceContext?

    /// The `traceparent` sent with the response, or "".
    public var traceparent: String { trace?.traceparent ?? "" }
    /// The W3C trace id (32 hex digits), or empty.
    public var traceID: String { trace?.traceID ?? "" }
    /// The request's header fields (empty when there was no head).
    public let requestHeaders: HTTPFields
    /// The peer's address, `ip:port`.
    public let remoteAddress: String
    /// The client's address (`HTTPRequest.clientAddress`).
    public let clientAddress: String
    /// The index of the event loop that served it (0 up to the server's
    /// loop count). Observers that count or buffer keep one shard of their
    /// state per loop by it: one lock every loop takes for every exchange
    /// convoys once loops outnumber cores (a holder preempted, the others
    /// asleep behind it).
    public let eventLoop: Int
}

/// Receives every ``CompletedExchange``. Runs on the connection's event loop, in
/// the request path: keep it short and non-blocking.
public typealias ExchangeObserver = @Sendable (CompletedExchange) -> Void
