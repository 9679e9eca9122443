/// A registered person. Immutable: every change returns a new `User`, and
/// changes that can break an invariant validate and throw.
///
/// Never carries a password or its hash: credentials belong to the storage
/// and hashing capabilities, so a `User` can be encoded to any response.
/// Encodes as `{id, name, email, email_verified, role, status, created_at}`.
///
/// `emailVerified`: the address was confirmed by a link mailed to it (or
/// the account predates verification). A deleted account keeps its row,
/// anonymised, with status `deleted`: its orders keep their customer.
public struct User: Hashable, Sendable, Codable, Identifiable, Validatable {
    public static let maxNameLength = 100

    public let id: UserID
    public let name: String
    public let email: Email
    public let emailVerified: Bool
    public let role: UserRole
    public let status: UserStatus
    public let createdAt: Timestamp

    /// Memberwise; does not validate (see `validate()` / `validated()`).
    public init(id: UserID, name: String, email: Email, emailVerified: Bool = true, role: UserRole = .customer,
                status: UserStatus = .active, createdAt: Timestamp) {
        self.id = id
        self.name = name
        self.email = email
        self.emailVerified = emailVerified
        self.role = role
        self.status = status
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, name, email
        case emailVerified = "email_verified"
        case role, status
        case createdAt = "created_at"
    }

    /// The name must be 1–100 characters with no surrounding whitespace or
    /// control characters. (The email is valid by construction.)
    public func validate() -> ValidationError? {
        var errors = ValidationError()
        User.checkName(name, into: &errors)
        return errors.orNil
    }

    /// A submitted name as stored: trimmed, in NFC (`TextRules.normalized`).
    public static func normalizedName(_ name: String) -> String {
        TextRules.normalized(name, maxCharacters: maxNameLength)
    }

    static func checkName(_ name: String, field: String = "name", into errors: inout ValidationError) {
        TextRules.checkLine(name, field: field, max: maxNameLength, into: &errors)
    }

    // MARK: - Questions

    public var isActive: Bool { status == .active }
    public var isAdmin: Bool { role == .admin }
    public var isDeleted: Bool { status == .deleted }
    /// Only active users log in, change their cart or check out.
    public var canPlaceOrder: Bool { isActive }
    public var canLogIn: Bool { isActive }

    // MARK: - Changes

    /// The name trimmed of surrounding whitespace and in NFC, then validated.
    public func renamed(to newName: String) throws -> User {
        try copy(name: User.normalizedName(newName)).validated()
    }

    /// A new address (uniqueness is the `UserState`'s job).
    /// A new address (uniqueness is the `UserState`'s job), unverified
    /// until a link mailed to it is followed, when `verifying` is set.
    public func changingEmail(to newEmail: Email, verifying: Bool = false) -> User {
        copy(email: newEmail, emailVerified: verifying ? false : emailVerified)
    }

    /// The address confirmed (its verification link followed).
    public func verified() -> User { copy(emailVerified: true) }

    public func suspended() -> User { copy(status: .suspended) }
    public func activated() -> User { copy(status: .active) }
    public func demoted() -> User { copy(role: .customer) }
    public func with(role: UserRole) -> User { copy(role: role) }
    public func with(status: UserStatus) -> User { copy(status: status) }

    private func copy(name: String? = nil, email: Email? = nil, emailVerified: Bool? = nil, role: UserRole? = nil,
                      status: UserStatus? = nil) -> User {
        User(id: id, name: name ?? self.name, email: email ?? self.email, emailVerified: emailVerified ?? self.emailVerified,
             role: role ?? self.role, status: status ?? self.status, createdAt: createdAt)
    }
}
