/// What the server decided about one exchange when its head arrived, for
/// ``ExchangePolicies/finish``: its trace, the CORS origin it may answer,
/// its route's policy and its rate-limit state.
struct ExchangeTerms: Sendable {
    var trace: TraceContext
    /// The client's address (`ClientAddress`), the peer's when there was no head.
    var client: String
    /// The request's `Origin` when it is on the CORS list.
    var origin: String?
    var policy: RoutePolicy?
    var rate: TokenBucket.Decision?
    var method: HTTPMethod?
    var acceptsGzip = false
    var ifNoneMatch: [String] = []

    /// A GET or a HEAD: what conditional requests and representation tags concern.
    var isRead: Bool { method == .get || method == .head }
}
