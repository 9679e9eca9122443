/// Whether an account may log in and act. A suspended user keeps their data
/// but cannot log in, change their cart or check out. A deleted account's
/// personal data is erased and its row kept, anonymised, so its orders and
/// payments keep a customer; it never signs in again.
public enum UserStatus: String, Hashable, Sendable, Codable, CaseIterable {
    case active
    case suspended
    case deleted

    /// What an admin may set (`PATCH /users/{id}`): deletion is the
    /// account owner's (`DELETE /me`) and is not undone.
    public static let assignable: [UserStatus] = [.active, .suspended]
}
