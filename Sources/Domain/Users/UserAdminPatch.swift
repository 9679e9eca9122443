/// An admin's change to a user (`PATCH /users/{id}`): status and/or role.
///
/// The values arrive as text so that an unknown one is a validation failure
/// naming the field (422), not a decoding failure (400).
public struct UserAdminPatch: Sendable, Codable, Equatable, Validatable {
    public let status: String?
    public let role: String?

    public init(status: String? = nil, role: String? = nil) {
        self.status = status
        self.role = role
    }

    public init(status: UserStatus? = nil, role: UserRole? = nil) {
        self.init(status: status?.rawValue, role: role?.rawValue)
    }

    enum CodingKeys: String, CodingKey {
        case status, role
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = try container.decodeOptionalMember(String.self, forKey: .status)
        role = try container.decodeOptionalMember(String.self, forKey: .role)
    }

    public var isEmpty: Bool { status == nil && role == nil }

    public func validate() -> ValidationError? {
        var errors = ValidationError()
        if let status, !UserStatus.assignable.contains(where: { $0.rawValue == status }) {
            errors.add("status", .invalidFormat, "status must be one of: "
                + UserStatus.assignable.map(\.rawValue).joined(separator: ", "))
        }
        if let role, UserRole(rawValue: role) == nil {
            errors.add("role", .invalidFormat, "role must be one of: "
                + UserRole.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return errors.orNil
    }

    /// `user_deleted` for an erased account: it stays deleted.
    public func applied(to user: User) throws -> User {
        if let errors = validate() { throw errors }
        if user.isDeleted { throw UserError.userDeleted(user.id) }
        var result = user
        if let status = status.flatMap(UserStatus.init(rawValue:)) { result = result.with(status: status) }
        if let role = role.flatMap(UserRole.init(rawValue:)) { result = result.with(role: role) }
        return result
    }
}
