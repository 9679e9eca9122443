import CSodium

/// libsodium's one-time initialisation (thread-safe; `sodium_init` itself
/// may be called repeatedly, this just does it once per process).
enum Sodium {
    /// True when libsodium initialised (0 = now, 1 = already); false only if
    /// it could not (no usable entropy source).
    static let isReady: Bool = sodium_init() >= 0

    static func ensureReady() throws(SecurityError) {
        guard isReady else { throw SecurityError.sodiumUnavailable }
    }
}

/// Errors of the security building blocks.
public enum SecurityError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libsodium failed to initialise.
    case sodiumUnavailable
    /// The password exceeds `PasswordHasher.maxPasswordBytes`.
    case passwordTooLong(maxBytes: Int)
    /// argon2id failed (in practice: not enough memory for `memLimit`).
    case hashingFailed
    /// Cost parameters outside libsodium's accepted range.
    case invalidParameters(String)
    /// Every hashing slot is busy and `PasswordHasher.maxWaiting` operations
    /// already wait for one: nothing was hashed.
    case busy

    public var description: String {
        switch self {
        case .sodiumUnavailable: "libsodium could not be initialised"
        case .passwordTooLong(let max): "password longer than \(max) bytes"
        case .hashingFailed: "argon2id hashing failed (out of memory?)"
        case .invalidParameters(let why): "invalid password hashing parameters: \(why)"
        case .busy: "every password hashing slot is busy and its queue is full"
        }
    }
}
