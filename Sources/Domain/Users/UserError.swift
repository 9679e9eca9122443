/// Refusals particular to user accounts (409: the account's state, or the
/// shop's, stands in the way).
public enum UserError: Refusal, Hashable {
    /// A suspended user tried something only an active user may do.
    case userSuspended(UserID)
    /// The change would leave no active admin (demoting or suspending the
    /// last one): nobody could administer the shop afterwards.
    case lastAdmin(UserID)

    public var code: String {
        switch self {
        case .userSuspended: "user_suspended"
        case .lastAdmin: "last_admin"
        }
    }

    public var category: RefusalCategory { .conflict }

    public var message: String {
        switch self {
        case .userSuspended:
            "the account is suspended"
        case .lastAdmin(let id):
            "user \(id) is the last active admin and cannot be demoted or suspended"
        }
    }
}
