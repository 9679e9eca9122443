/// A user's change to their own profile (`PATCH /users/me`): any of name,
/// email and password. Changing the email or the password needs the current
/// password (checked against the stored hash by the caller; here only its
/// presence): a leaked token alone must not be enough to take the account
/// over through "forgot password" at a new address.
///
/// JSON keys: `name`, `email`, `password`, `current_password`.
public struct UserProfilePatch: Sendable, Decodable, Validatable, CustomStringConvertible {
    public let name: String?
    public let email: String?
    public let password: String?
    public let currentPassword: String?

    public init(name: String? = nil, email: String? = nil, password: String? = nil, currentPassword: String? = nil) {
        self.name = name
        self.email = email
        self.password = password
        self.currentPassword = currentPassword
    }

    enum CodingKeys: String, CodingKey {
        case name, email, password
        case currentPassword = "current_password"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeOptionalMember(String.self, forKey: .name)
        email = try container.decodeOptionalMember(String.self, forKey: .email)
        password = try container.decodeOptionalMember(String.self, forKey: .password)
        currentPassword = try container.decodeOptionalMember(String.self, forKey: .currentPassword)
    }

    public var isEmpty: Bool { name == nil && email == nil && password == nil }

    /// A new email or password must come with the current password.
    public var needsCurrentPassword: Bool { email != nil || password != nil }

    public func validate() -> ValidationError? {
        var errors = ValidationError()
        if let name { User.checkName(User.normalizedName(name), into: &errors) }
        if let email { errors.add(Email.check(email)) }
        if let password { errors.add(PasswordPolicy.check(password)) }
        if needsCurrentPassword, (currentPassword ?? "").isEmpty {
            errors.add("current_password", .required, "current_password is required to change the email or the password")
        }
        return errors.orNil
    }

    /// The user with the name and email changed, after validating every
    /// field. The password (if any) is the caller's to verify and hash.
    public func applied(to user: User) throws -> User {
        if let errors = validate() { throw errors }
        var result = user
        if let name { result = try result.renamed(to: name) }
        if let email { result = result.changingEmail(to: try Email(email)) }
        return result
    }

    public var description: String {
        "UserProfilePatch(name: \(name ?? "-"), email: \(email ?? "-"), password: \(password == nil ? "-" : "<redacted>"))"
    }
}
