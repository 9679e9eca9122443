/// What a mailed account token is for; stored beside its hash
/// (`account_tokens.purpose`), so a reset token never confirms an address
/// and a verification token never sets a password.
public enum AccountTokenPurpose: String, Sendable, Hashable {
    case passwordReset = "reset"
    case emailVerification = "verify"
}
