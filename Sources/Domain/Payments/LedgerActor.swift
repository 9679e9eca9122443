/// Who caused a money movement: the provider (a signed event), an admin
/// (by user id), or the service itself (entries carried over from before
/// the ledger existed).
public enum LedgerActor: Hashable, Sendable {
    case provider
    case admin(UserID)
    case system

    /// The stored and published name: `provider`, `admin` or `system`.
    public var kind: String {
        switch self {
        case .provider: "provider"
        case .admin: "admin"
        case .system: "system"
        }
    }

    /// The admin's id; nil for the others.
    public var userID: UserID? {
        if case .admin(let id) = self { return id }
        return nil
    }

    /// Read back from `kind` and `userID`; nil for anything else.
    public init?(kind: String, userID: UserID?) {
        switch (kind, userID) {
        case ("provider", nil): self = .provider
        case ("system", nil): self = .system
        case ("admin", let id?): self = .admin(id)
        default: return nil
        }
    }
}
