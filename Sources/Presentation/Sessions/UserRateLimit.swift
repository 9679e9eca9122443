import Domain
import HTTPServer

/// The `per-user` rate limit: a token bucket per signed-in user, on the
/// server's limiter (keyed by user id instead of address), taken once the
/// session gate knows who is calling. A user's sessions share one bucket,
/// so signing in again from more devices or addresses buys no more
/// requests. Its state goes on the response beside the server's
/// `per-address` one: each response names both policies.
public struct UserRateLimit: Sendable {
    public let limiter: RateLimiter?

    /// `limiter` nil: no per-user limit (`rate_limit` off).
    public init(_ limiter: RateLimiter?) {
        self.limiter = limiter
    }

    /// A token for `caller`'s user: nil when there is no limit, the
    /// policy's state when allowed; a refusal is thrown as `429 rate_limited`.
    func admit(_ caller: Authentication) throws -> RateLimitState? {
        try limiter?.admit(caller.user.id.description) { "Too many requests from this user; retry in \($0) s." }
    }

    /// `response` with the user policy's state for an allowed request.
    func decorate(_ response: HTTPResponse, _ state: RateLimitState?) -> HTTPResponse {
        guard let state else { return response }
        var response = response
        response.rateLimits.append(state)
        return response
    }
}
