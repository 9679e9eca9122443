/// The protocol-level policies around every handler, in one place: trace
/// context, CORS, rate limits at the head (before any body byte is read);
/// conditional GETs, caching fields and compression on the response.
/// Knows no domain: routes opt in through their ``RoutePolicy``.
final class ExchangePolicies: Sendable {
    let compression: CompressionPolicy?
    let cors: CORSPolicy?
    let rateLimiter: RateLimiter?
    let trustedProxies: Set<String>

    init(configuration: HTTPServerConfiguration) {
        compression = configuration.compression
        cors = configuration.cors.flatMap { $0.allowedOrigins.isEmpty ? nil : $0 }
        rateLimiter = configuration.rateLimit.map { RateLimiter(policy: $0) }
        trustedProxies = configuration.trustedProxies
    }

    /// Terms for a request whose head arrived (or for an answer without
    /// one, `head` nil: a timeout, a malformed request).
    func begin(_ head: RequestHead?, ids: inout TraceIDSource) -> ExchangeTerms {
        guard let head else { return ExchangeTerms(trace: TraceContext.make(from: HTTPFields(), ids: &ids)) }
        var terms = ExchangeTerms(trace: TraceContext.make(from: head.headers, ids: &ids))
        terms.method = head.method
        terms.origin = cors?.allowedOrigin(head.headers)
        if compression != nil { terms.acceptsGzip = AcceptEncoding.allowsGzip(head.headers) }
        if head.method == .get || head.method == .head { terms.ifNoneMatch = head.headers.values(for: "if-none-match") }
        return terms
    }

    /// Takes a token for a routed request, from the loop's `leases` on the
    /// limiter; a refusal is the 429 to send.
    func admit(_ route: Router.Route, peerHost: String, headers: HTTPFields, terms: inout ExchangeTerms,
               leases: inout TokenLeases?, requestID: String) -> HTTPResponse? {
        terms.policy = route.policy
        guard let rateLimiter, route.policy.rateLimited else { return nil }
        let client = ClientAddress.resolve(peer: peerHost, headers: headers, trustedProxies: trustedProxies)
        let now = MonotonicClock.nowNanoseconds()
        let decision = leases?.take(client, now: now) ?? rateLimiter.take(client, now: now)
        terms.rate = decision
        guard case .refused(let seconds) = decision else { return nil }
        return ProblemDetails.response(for: HTTPError(.tooManyRequests, code: "rate_limited",
                                                      detail: "Too many requests from this client; retry in \(seconds) s.",
                                                      headers: ["Retry-After": String(seconds)]),
                                       requestID: requestID)
    }

    /// The response as sent: a 304 for a matching `If-None-Match`, gzip
    /// when it pays, CORS fields; and the fields every response of the
    /// route carries (trace context, caching, rate limits), which the head
    /// writes without touching the handler's field list. On the common
    /// path (no gzip, no CORS, no 304) the handler's fields are not copied.
    func finish(_ response: HTTPResponse, terms: ExchangeTerms) -> (response: HTTPResponse, fields: ExchangeFields) {
        var response = response
        var fields = ExchangeFields(trace: terms.trace)
        var vary: [String] = []
        var gzip = false
        if let compression, compression.isCompressible(response) {
            vary.append("Accept-Encoding")
            gzip = terms.acceptsGzip
        }
        if let policy = terms.policy, (200..<300).contains(response.status.code) {
            if let cacheControl = policy.cacheControl, !response.headers.contains("cache-control") {
                fields.cacheControl = cacheControl
            }
            if case .bytes(let body) = response.body, response.status == .ok,
               terms.method == .get || terms.method == .head {
                // A handler's own tag (a cached representation keeps one)
                // is left in place unless the coding changes it.
                if let tag = response.headers["etag"] {
                    if gzip { response.headers.set("ETag", EntityTag.gzipVariant(of: tag)) }
                } else if policy.entityTag {
                    let tag = EntityTag.of(body)
                    response.headers.set("ETag", gzip ? EntityTag.gzipVariant(of: tag) : tag)
                }
                // RFC 9110 13.2.2: If-None-Match is evaluated for a 2xx
                // answer (we have no If-Match / If-Unmodified-Since on
                // reads); a hit on GET or HEAD is a 304, and nothing is
                // compressed for it.
                if let sent = response.headers["etag"], !terms.ifNoneMatch.isEmpty,
                   EntityTag.noneMatchHits(terms.ifNoneMatch, tag: sent) {
                    response = notModified(response)
                    gzip = false
                }
            }
        }
        if gzip, case .bytes(let body) = response.body, let level = compression?.level,
           let encoded = Gzip.compress(body, level: level) {
            response.body = .bytes(encoded)
            response.headers.set("Content-Encoding", "gzip")
            // A write's answer carries the tag its handler set for the
            // identity coding (reads got theirs above): the gzip-coded
            // representation is another one (8.8.3).
            if terms.method != .get && terms.method != .head, let tag = response.headers["etag"] {
                response.headers.set("ETag", EntityTag.gzipVariant(of: tag))
            }
        }
        if cors != nil {
            vary.append("Origin")
            if let origin = terms.origin { CORSPolicy.decorate(&response.headers, origin: origin) }
        }
        if !vary.isEmpty {
            if let existing = response.headers["vary"] { vary.insert(existing, at: 0) }
            response.headers.set("Vary", vary.joined(separator: ", "))
        }
        if let rateLimiter, let rate = terms.rate {
            // Written after any the handler set (a per-user policy): two
            // field lines are one list (RFC 9110 5.3), a policy per item.
            fields.rateLimit = .init(policyField: rateLimiter.policyField, name: rateLimiter.policy.name, decision: rate)
        }
        if response.status.code >= 400,
           response.headers["content-type"]?.hasPrefix(ProblemDetails.contentType) == true {
            response.body = ProblemDetails.addingTraceID(terms.trace.traceID, to: response.body)
        }
        return (response, fields)
    }

    /// RFC 9110 15.4.5: a 304 carries the fields a 200 would have had among
    /// Cache-Control, Content-Location, Date, ETag, Expires and Vary, and
    /// no representation metadata or content.
    private func notModified(_ response: HTTPResponse) -> HTTPResponse {
        var headers = HTTPFields()
        for field in response.headers where !Self.representationFields.contains(field.name.lowercased()) {
            headers.append(field.name, field.value)
        }
        return HTTPResponse(status: .notModified, headers: headers, body: .empty)
    }

    private static let representationFields: Set<String> = ["content-type", "content-encoding", "content-language"]
}
