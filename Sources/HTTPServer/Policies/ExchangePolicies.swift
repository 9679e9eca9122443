/// The protocol-level policies around every handler, in one place: trace
/// context, CORS, rate limits at the head (before any body byte is read);
/// on the response, the stages in `Stages/` (compression, conditional
/// requests, CORS, `Vary`, rate-limit fields, problem trace ids), composed
/// here. Knows no domain: routes opt in through their ``RoutePolicy``.
final class ExchangePolicies: Sendable {
    let compression: CompressionPolicy?
    let cors: CORSPolicy?
    let rateLimiter: RateLimiter?
    let trustedProxies: Set<String>
    private let stages: [any ResponseStage]

    init(configuration: HTTPServerConfiguration) {
        compression = configuration.compression
        cors = configuration.cors.flatMap { $0.allowedOrigins.isEmpty ? nil : $0 }
        rateLimiter = configuration.rateLimit.map { RateLimiter(policy: $0, shared: configuration.sharedRateLimit) }
        trustedProxies = configuration.trustedProxies
        stages = Self.stages(compression: compression, cors: cors, rateLimiter: rateLimiter)
    }

    /// Terms for a request whose head arrived (or for an answer without
    /// one, `head` nil: a timeout, a malformed request).
    func begin(_ head: RequestHead?, peerHost: String, ids: inout TraceIDSource) -> ExchangeTerms {
        guard let head else {
            return ExchangeTerms(trace: TraceContext.make(from: HTTPFields(), ids: &ids), client: peerHost)
        }
        var terms = ExchangeTerms(trace: TraceContext.make(from: head.headers, ids: &ids),
                                  client: ClientAddress.resolve(peer: peerHost, headers: head.headers,
                                                                trustedProxies: trustedProxies))
        terms.method = head.method
        terms.origin = cors?.allowedOrigin(head.headers)
        if compression != nil { terms.acceptsGzip = AcceptEncoding.allowsGzip(head.headers) }
        if head.method == .get || head.method == .head { terms.ifNoneMatch = head.headers.values(for: "if-none-match") }
        return terms
    }

    /// Takes a token for a routed request, from the loop's `leases` on the
    /// limiter; a refusal is the 429 to send.
    func admit(_ route: Router.Route, terms: inout ExchangeTerms, leases: inout TokenLeases?,
               requestID: String) -> HTTPResponse? {
        terms.policy = route.policy
        guard let rateLimiter, route.policy.rateLimited else { return nil }
        let client = terms.client
        let now = MonotonicClock.nowNanoseconds()
        let decision = leases?.take(client, now: now) ?? rateLimiter.take(client, now: now)
        terms.rate = decision
        guard case .refused(let seconds) = decision else { return nil }
        return ProblemDetails.response(for: HTTPError(.tooManyRequests, code: "rate_limited",
                                                      detail: "Too many requests from this client; retry in \(seconds) s.",
                                                      headers: ["Retry-After": String(seconds)]),
                                       requestID: requestID)
    }

    /// The response as sent, through each stage in turn, and the fields
    /// every response of the route carries (trace context, caching, rate
    /// limits), which the head writes without touching the handler's field
    /// list. On the common path (no gzip, no CORS, no 304) the handler's
    /// fields are not copied.
    func finish(_ response: HTTPResponse, terms: ExchangeTerms) -> (response: HTTPResponse, fields: ExchangeFields) {
        var exit = ResponseExit(response: response,
                                fields: ExchangeFields(trace: terms.trace, applicationRateLimits: response.rateLimits))
        for stage in stages { stage.apply(to: &exit, terms: terms) }
        return (exit.response, exit.fields)
    }

    /// The stages, in order, of what is configured: which coding and which
    /// tag a body has are settled before the 304 check, which may withdraw
    /// the coding; `Vary` is written once every stage named what it varies on.
    private static func stages(compression: CompressionPolicy?, cors: CORSPolicy?,
                               rateLimiter: RateLimiter?) -> [any ResponseStage] {
        var stages: [any ResponseStage] = []
        if let compression { stages.append(CompressionNegotiation(policy: compression)) }
        stages.append(ConditionalRequests())
        if let compression { stages.append(GzipCoding(level: compression.level)) }
        if cors != nil { stages.append(CORSFields()) }
        stages.append(VaryField())
        if let rateLimiter { stages.append(RateLimitFields(limiter: rateLimiter)) }
        stages.append(ProblemTraceID())
        return stages
    }
}
