/// The password rules, as a pure function (hashing is a capability's job).
///
/// At least 10 characters (user-perceived `Character`s, so a passphrase in
/// any script counts what people see) and at most 1024 UTF-8 bytes (the
/// hasher reads bytes; the bound keeps one request from making it hash
/// megabytes). Nothing else: no composition rules (NIST SP 800-63B).
public enum PasswordPolicy {
    public static let minimumCharacters = 10
    public static let maximumBytes = 1024

    /// The failure for `password`, or `nil` when it is acceptable.
    public static func check(_ password: String, field: String = "password") -> FieldError? {
        if password.isEmpty {
            return FieldError(field: field, code: .required, message: "\(field) is required")
        }
        if password.utf8.count > maximumBytes {
            return FieldError(field: field, code: .tooLong,
                              message: "\(field) must be at most \(maximumBytes) bytes")
        }
        if password.count < minimumCharacters {
            return FieldError(field: field, code: .tooShort,
                              message: "\(field) must be at least \(minimumCharacters) characters")
        }
        return nil
    }
}
