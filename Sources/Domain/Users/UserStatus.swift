/// Whether an account may log in and act. A suspended user keeps their data
/// but cannot log in, change their cart or check out.
public enum UserStatus: String, Hashable, Sendable, Codable, CaseIterable {
    case active
    case suspended
}
