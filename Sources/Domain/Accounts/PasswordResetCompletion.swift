/// `POST /password-resets/complete`: the token from the mailed link and
/// the new password. `validate()` names every failing field: `token`
/// (required) and `password` (`PasswordPolicy`). Its description hides both.
public struct PasswordResetCompletion: Sendable, Decodable, Validatable, CustomStringConvertible {
    public let token: String
    public let password: String

    public init(token: String, password: String) {
        self.token = token
        self.password = password
    }

    public func validate() -> ValidationError? {
        var errors = ValidationError()
        if token.isEmpty { errors.add("token", .required, "token is required") }
        errors.add(PasswordPolicy.check(password))
        return errors.orNil
    }

    public var description: String { "PasswordResetCompletion(token: <redacted>, password: <redacted>)" }
}
