/// Every password-hashing slot is busy and as many requests as may wait
/// for one already do: this one changed nothing (no account, session or
/// password; a sign-in attempt it cut short is given back to the throttle,
/// since no password was checked). Retry after `retryAfterSeconds`.
public struct PasswordHashingBusy: Error, Hashable, Sendable {
    public let retryAfterSeconds: Int

    public init(retryAfterSeconds: Int = 1) {
        self.retryAfterSeconds = retryAfterSeconds
    }
}
