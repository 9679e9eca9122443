/// One rate-limit policy's state after a request took a token or was
/// refused: what its `RateLimit-Policy` and `RateLimit` fields say
/// (draft-ietf-httpapi-ratelimit-headers-11). Every policy answers with
/// one, the server's `per-address` in its exchange stage and the
/// application's (`per-user`, the route classes, sign-in's `login`) on the
/// response (`HTTPResponse.rateLimits`) or on its refusal, and the response
/// head writes them all the same way (`ExchangeFields`).
public struct RateLimitState: Sendable {
    /// `RateLimit-Policy`'s value, made once per policy.
    let policyField: String
    let name: String
    let remaining: Int
    let resetSeconds: Int

    public init(policyField: String, name: String, remaining: Int, resetSeconds: Int) {
        self.policyField = policyField
        self.name = name
        self.remaining = max(0, remaining)
        self.resetSeconds = max(0, resetSeconds)
    }

    /// `limiter`'s state after `decision` (a refusal has 0 remaining until its retry).
    init(_ limiter: RateLimiter, _ decision: TokenBucket.Decision) {
        let (remaining, reset) = switch decision {
        case .allowed(let remaining, let reset): (remaining, reset)
        case .refused(let retryAfter): (0, retryAfter)
        }
        self.init(policyField: limiter.policyField, name: limiter.policy.name, remaining: remaining, resetSeconds: reset)
    }

    /// Bytes its two field lines take in a head, at most.
    var capacity: Int { 80 + policyField.utf8.count + name.utf8.count }

    /// The 429 of a refused request: `Retry-After` and this policy's fields.
    public func refusal(code: String = "rate_limited", detail: String) -> HTTPError {
        var headers = HTTPFields()
        headers.set("Retry-After", String(resetSeconds))
        headers.set("RateLimit-Policy", policyField)
        headers.set("RateLimit", RateLimitPolicy.stateField(name: name, remaining: remaining, resetSeconds: resetSeconds))
        return HTTPError(.tooManyRequests, code: code, detail: detail, headers: headers)
    }
}

extension RateLimiter {
    /// A token for `key`: this policy's state for the response, or its
    /// refusal thrown (`429 rate_limited`, `detail` told the seconds to wait).
    public func admit(_ key: String, detail: (Int) -> String) throws(HTTPError) -> RateLimitState {
        let decision = take(key)
        let state = RateLimitState(self, decision)
        if case .refused(let seconds) = decision { throw state.refusal(detail: detail(seconds)) }
        return state
    }
}
