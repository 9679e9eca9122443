/// A reset or verification link that cannot be used: unknown, used,
/// expired, voided by a newer one, or (verification) for an address the
/// account no longer has. One answer for all of them (422: the token in
/// the body is not a valid one), so the answer tells nobody which tokens
/// were ever issued.
public enum AccountTokenError: Refusal, Hashable {
    case resetTokenInvalid
    case verificationTokenInvalid

    public var code: String {
        switch self {
        case .resetTokenInvalid: "reset_token_invalid"
        case .verificationTokenInvalid: "verification_token_invalid"
        }
    }

    public var category: RefusalCategory { .invalid }

    public var message: String {
        switch self {
        case .resetTokenInvalid:
            "The reset link is unknown, used or expired; ask for a new one (POST /password-resets)."
        case .verificationTokenInvalid:
            "The verification link is unknown, used or expired, or the address changed since; sign in and ask for a new one."
        }
    }
}
