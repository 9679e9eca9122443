/// Every password-hashing slot is busy and as many requests as may wait
/// for one already do: this one changed nothing (no account, session or
/// password; a sign-in attempt it cut short is given back to the throttle,
/// since no password was checked). Retry after `retryAfterSeconds`.
public struct PasswordHashingBusy: Refusal, Hashable {
    public let retryAfter: Int

    public init(retryAfterSeconds: Int = 1) {
        retryAfter = retryAfterSeconds
    }

    public var code: String { "password_hashing_busy" }
    public var category: RefusalCategory { .unavailable }
    public var message: String {
        "Too many password checks are waiting; nothing was done. Retry in \(retryAfter) s."
    }
    public var retryAfterSeconds: Int? { retryAfter }
}
