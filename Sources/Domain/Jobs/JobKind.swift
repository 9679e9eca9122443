/// A kind of job, declared in the files of the feature that enqueues it
/// (its name is what the queue stores and what admins filter by).
public struct JobKind: Sendable, Hashable {
    /// Dotted, lower case: `order.mail`, `account.mail`, `payments.expire`.
    public let name: String
    /// Attempts before the job is `dead` with its last error.
    public let maxAttempts: Int
    /// A payload that holds a secret (a reset token): erased when the job
    /// finishes, whichever way, and never shown to admins.
    public let sensitive: Bool

    public init(_ name: String, maxAttempts: Int = 20, sensitive: Bool = false) {
        self.name = name
        self.maxAttempts = max(1, maxAttempts)
        self.sensitive = sensitive
    }
}
