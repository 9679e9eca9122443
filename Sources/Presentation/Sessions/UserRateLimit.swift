import Domain
import HTTPServer

/// The `per-user` rate limit: a token bucket per signed-in user, on the
/// server's limiter (keyed by user id instead of address), taken once the
/// session gate knows who is calling. A user's sessions share one bucket,
/// so signing in again from more devices or addresses buys no more
/// requests. Its fields are appended beside the server's `per-address`
/// ones: each response names both policies.
public struct UserRateLimit: Sendable {
    public let limiter: RateLimiter?

    /// `limiter` nil: no per-user limit (`rate_limit` off).
    public init(_ limiter: RateLimiter?) {
        self.limiter = limiter
    }

    /// A token for `caller`'s user: nil when there is no limit, the
    /// decision when allowed; a refusal is thrown as `429 rate_limited`.
    func admit(_ caller: Authentication) throws -> TokenBucket.Decision? {
        guard let limiter else { return nil }
        let decision = limiter.take(caller.user.id.description)
        guard case .refused(let seconds) = decision else { return decision }
        var headers = HTTPFields()
        headers.set("Retry-After", String(seconds))
        headers.set("RateLimit-Policy", limiter.policyField)
        headers.set("RateLimit", limiter.stateField(for: decision))
        throw HTTPError(.tooManyRequests, code: "rate_limited",
                        detail: "Too many requests from this user; retry in \(seconds) s.", headers: headers)
    }

    /// `response` with the user policy's fields for an allowed request.
    func decorate(_ response: HTTPResponse, _ decision: TokenBucket.Decision?) -> HTTPResponse {
        guard let limiter, let decision else { return response }
        var response = response
        response.headers.append("RateLimit-Policy", limiter.policyField)
        response.headers.append("RateLimit", limiter.stateField(for: decision))
        return response
    }
}
