/// The account flows' settings, given by the composition root.
public struct AccountSettings: Sendable {
    /// Whether mail can be sent (the mail client is configured): without
    /// it nothing that only a mail can finish is started (no reset, no
    /// verification link, no notice).
    public var mailEnabled: Bool
    /// How long a password-reset link works (`password_reset_ttl`).
    public var resetTokenLifetimeSeconds: Int64
    /// How long an address-verification link works (`email_verification_ttl`).
    public var verificationTokenLifetimeSeconds: Int64
    /// Reset links one account is mailed per `resetWindowSeconds` at most
    /// (`password_reset_max_per_account`): more requests are answered the
    /// same and mail nothing, so nobody can flood an inbox.
    public var resetsPerAccount: Int
    public var resetWindowSeconds: Int64

    public init(mailEnabled: Bool = false, resetTokenLifetimeSeconds: Int64 = 1_800,
                verificationTokenLifetimeSeconds: Int64 = 172_800, resetsPerAccount: Int = 3,
                resetWindowSeconds: Int64 = 3_600) {
        self.mailEnabled = mailEnabled
        self.resetTokenLifetimeSeconds = resetTokenLifetimeSeconds
        self.verificationTokenLifetimeSeconds = verificationTokenLifetimeSeconds
        self.resetsPerAccount = resetsPerAccount
        self.resetWindowSeconds = resetWindowSeconds
    }
}
