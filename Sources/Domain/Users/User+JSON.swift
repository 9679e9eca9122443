import Formats

/// A user document `{id, name, email, email_verified, role, status,
/// created_at}` written directly into bytes, as `User.encode(to:)` writes
/// it (the admin API's users): the `data` of a customer's webhook event,
/// where the version follows the user's members.
extension JSONBytes {
    /// `{` and the user's members, without the closing brace.
    public mutating func userMembers(_ user: User) {
        raw("{\"id\":")
        rawString(user.id.description)
        raw(",\"name\":")
        string(user.name)
        raw(",\"email\":")
        string(user.email.address)
        raw(user.emailVerified ? ",\"email_verified\":true" : ",\"email_verified\":false")
        raw(",\"role\":")
        rawString(user.role.rawValue)
        raw(",\"status\":")
        rawString(user.status.rawValue)
        raw(",\"created_at\":")
        timestamp(user.createdAt)
    }
}
