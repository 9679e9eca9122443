import HTTPServer

/// A rate limit of one class of routes (`sign-in`, `registration`,
/// `checkout`, `password-reset`) per client address (`HTTPRequest.clientAddress`): a named
/// policy on the server's limiter, like `per-user`, for the routes whose
/// every request costs a password hash or a stock reservation, where the
/// server's `per-address` bucket (sized for browsing) is far too large.
/// Its state goes on an allowed response beside the other policies'; a
/// refusal is `429 rate_limited` naming it.
public struct RouteClassRateLimit: Sendable {
    public let limiter: RateLimiter?

    /// `limiter` nil: no limit for the class (`rate_limit` off).
    public init(_ limiter: RateLimiter?) {
        self.limiter = limiter
    }

    func guarding(_ request: HTTPRequest, _ body: () async throws -> HTTPResponse) async throws -> HTTPResponse {
        guard let limiter else { return try await body() }
        let state = try limiter.admit(request.clientAddress) {
            "Too many \(limiter.policy.name) requests from this client; retry in \($0) s."
        }
        var response = try await body()
        response.rateLimits.append(state)
        return response
    }
}

/// The route classes' limits, made by the composition root.
public struct RouteClassRateLimits: Sendable {
    public let signIn: RouteClassRateLimit
    public let registration: RouteClassRateLimit
    public let checkout: RouteClassRateLimit
    /// Reset requests and completions: each request may queue a mail.
    public let passwordReset: RouteClassRateLimit

    public init(signIn: RouteClassRateLimit = RouteClassRateLimit(nil),
                registration: RouteClassRateLimit = RouteClassRateLimit(nil),
                checkout: RouteClassRateLimit = RouteClassRateLimit(nil),
                passwordReset: RouteClassRateLimit = RouteClassRateLimit(nil)) {
        self.signIn = signIn
        self.registration = registration
        self.checkout = checkout
        self.passwordReset = passwordReset
    }

    /// Every class's limiter, for metrics and cluster-wide counting.
    public var limiters: [RateLimiter] {
        [signIn.limiter, registration.limiter, checkout.limiter, passwordReset.limiter].compactMap { $0 }
    }
}
