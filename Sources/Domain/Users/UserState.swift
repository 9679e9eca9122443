/// The owned state of `UserClient`: every user by id, and the email index
/// that makes addresses unique case-insensitively. The index is kept in step
/// by the only two writers, `insert` and `update`.
public struct UserState: Sendable, Equatable {
    public private(set) var users: [UserID: User] = [:]
    /// `Email.normalized` → owner.
    public private(set) var idsByEmail: [String: UserID] = [:]

    public init() {}

    /// A state holding `users` (loaded from storage); the same checks as
    /// inserting them one by one.
    public init(users: some Sequence<User>) throws {
        for user in users { try insert(user) }
    }

    public var count: Int { users.count }

    public func user(_ id: UserID) -> User? { users[id] }

    /// Looks a user up by any spelling of their address.
    public func user(email text: String) -> User? {
        idsByEmail[Email.normalizedKey(text)].flatMap { users[$0] }
    }

    /// Whether someone other than `owner` already uses `email`.
    public func isEmailTaken(_ email: Email, by owner: UserID? = nil) -> Bool {
        guard let holder = idsByEmail[email.normalized] else { return false }
        return holder != owner
    }

    /// Adds a new, valid user. Throws `duplicate(email)` when the address is
    /// taken (in any case) and `duplicate(id)` when the id is.
    public mutating func insert(_ user: User) throws {
        _ = try user.validated()
        if users[user.id] != nil { throw EntityError.duplicate(field: "id", value: user.id.description) }
        if isEmailTaken(user.email) { throw EntityError.duplicate(field: "email", value: user.email.address) }
        users[user.id] = user
        idsByEmail[user.email.normalized] = user.id
    }

    /// Replaces an existing user with a valid new version of it, moving its
    /// email index entry when the address changed.
    public mutating func update(_ user: User) throws {
        _ = try user.validated()
        guard let old = users[user.id] else { throw EntityError.notFound(entity: "user", id: user.id.description) }
        if isEmailTaken(user.email, by: user.id) {
            throw EntityError.duplicate(field: "email", value: user.email.address)
        }
        idsByEmail[old.email.normalized] = nil
        idsByEmail[user.email.normalized] = user.id
        users[user.id] = user
    }
}
