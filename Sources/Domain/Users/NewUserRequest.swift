/// A registration as submitted (`POST /users`): raw text, not yet trusted.
///
/// `validate()` reports every failing field at once: `name` (1–100
/// characters after trimming), `email` (syntax), `password`
/// (`PasswordPolicy`). Decodable only, and its description hides the
/// password, so it never ends up in a response or a log.
public struct NewUserRequest: Sendable, Decodable, Validatable, CustomStringConvertible {
    public let name: String
    public let email: String
    public let password: String

    public init(name: String, email: String, password: String) {
        self.name = name
        self.email = email
        self.password = password
    }

    public func validate() -> ValidationError? {
        var errors = ValidationError()
        User.checkName(User.normalizedName(name), into: &errors)
        errors.add(Email.check(email))
        errors.add(PasswordPolicy.check(password))
        return errors.orNil
    }

    /// The user this registration creates (active, its address not yet
    /// confirmed unless `emailVerified`), after full validation. The
    /// password is left to the caller, who hashes it.
    public func makeUser(id: UserID, role: UserRole = .customer, createdAt: Timestamp,
                         emailVerified: Bool = false) throws -> User {
        if let errors = validate() { throw errors }
        return User(id: id, name: User.normalizedName(name), email: try Email(email), emailVerified: emailVerified,
                    role: role, status: .active, createdAt: createdAt)
    }

    public var description: String { "NewUserRequest(name: \(name), email: \(email), password: <redacted>)" }
}
