import Domain
import HTTPServer

/// Sign-in throttling as the `login` policy of the rate-limit mechanism:
/// the users client's back-off (`too_many_attempts`, kept as the problem
/// code: clients and the docs already branch on it) comes out as a 429
/// with `Retry-After` and the same `RateLimit-Policy` / `RateLimit` fields
/// as the `per-address` and `per-user` limits, naming `login`. Its quota is
/// the failures one address may make at one account before back-off, its
/// window the seconds after which failures are forgotten.
public struct LoginRateLimit: Sendable {
    let policyField: String

    public init(quota: Int, windowSeconds: Int) {
        policyField = RateLimitPolicy.policyField(name: "login", quota: quota, windowSeconds: windowSeconds)
    }

    /// Runs a handler body; a throttled attempt becomes the `login` 429.
    func guarding(_ body: () async throws -> HTTPResponse) async throws -> HTTPResponse {
        do {
            return try await body()
        } catch AuthenticationError.tooManyAttempts(let seconds) {
            var problem = AuthenticationError.tooManyAttempts(retryAfterSeconds: seconds).problem
            problem.headers.set("RateLimit-Policy", policyField)
            problem.headers.set("RateLimit", RateLimitPolicy.stateField(name: "login", remaining: 0, resetSeconds: seconds))
            throw problem
        }
    }
}
