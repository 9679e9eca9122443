/// The server's payment configuration (`payment_webhook_secret`,
/// `payment_webhook_tolerance`, `payment_timeout`, `manual_payment_timeout`).
public struct PaymentSettings: Sendable {
    /// The secret shared with the provider; nil turns the webhook off (503).
    public var webhookSecret: [UInt8]?
    /// How far a signature's `t` may be from now, either way, in seconds:
    /// an intercepted delivery replayed later than this is refused.
    public var webhookToleranceSeconds: Int64
    /// How long a payment may stay unpaid, in seconds.
    public var timeoutSeconds: Int64
    /// How long a payment by a manual method (a bank transfer) may stay
    /// unpaid, in days: the money takes days to arrive and be recorded.
    public var manualTimeoutDays: Int64

    public init(webhookSecret: String?, webhookToleranceSeconds: Int64 = 300, timeoutSeconds: Int64 = 900,
                manualTimeoutDays: Int64 = 7) {
        self.webhookSecret = webhookSecret.map { Array($0.utf8) }
        self.webhookToleranceSeconds = webhookToleranceSeconds
        self.timeoutSeconds = timeoutSeconds
        self.manualTimeoutDays = manualTimeoutDays
    }
}
