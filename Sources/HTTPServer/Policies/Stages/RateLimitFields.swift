/// The server's rate-limit state for a limited route, written after any the
/// handler set (a per-user policy): two field lines are one list (RFC 9110
/// 5.3), a policy per item.
struct RateLimitFields: ResponseStage {
    let limiter: RateLimiter

    func apply(to exit: inout ResponseExit, terms: ExchangeTerms) {
        guard let rate = terms.rate else { return }
        exit.fields.rateLimit = RateLimitState(limiter, rate)
    }
}
