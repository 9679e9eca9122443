/// Refusals particular to user accounts (409: the account's state, or the
/// shop's, stands in the way).
public enum UserError: Refusal, Hashable {
    /// A suspended user tried something only an active user may do.
    case userSuspended(UserID)
    /// The change would leave no active admin (demoting or suspending the
    /// last one): nobody could administer the shop afterwards.
    case lastAdmin(UserID)
    /// The shop requires a confirmed address (`require_verified_email`)
    /// before checkout, and this account's is not confirmed yet.
    case emailNotVerified(UserID)
    /// The account was deleted: an admin cannot change it back.
    case userDeleted(UserID)

    public var code: String {
        switch self {
        case .userSuspended: "user_suspended"
        case .lastAdmin: "last_admin"
        case .emailNotVerified: "email_not_verified"
        case .userDeleted: "user_deleted"
        }
    }

    public var category: RefusalCategory { .conflict }

    public var message: String {
        switch self {
        case .userSuspended:
            "the account is suspended"
        case .lastAdmin(let id):
            "user \(id) is the last active admin and cannot be demoted or suspended"
        case .emailNotVerified:
            "confirm your email address first: follow the link mailed to it (POST /email-verifications)"
        case .userDeleted(let id):
            "user \(id) was deleted"
        }
    }
}
