/// Why a sign-in or a bearer token was refused. Stable codes for the API:
/// 401 (answered with a `WWW-Authenticate` challenge) and 429 (with
/// `Retry-After`). Wrong email, wrong password and a suspended
/// account are one error, so a caller can learn neither which accounts
/// exist nor whether a guessed password was right.
public enum AuthenticationError: Refusal, Hashable {
    /// Unknown email, wrong password, or a suspended account.
    case invalidCredentials
    /// Too many failed sign-ins for this account or from this address.
    case tooManyAttempts(retryAfterSeconds: Int)
    /// The bearer token is unknown, expired or revoked.
    case invalidToken
    /// An event-stream ticket is unknown, used, expired, or its session
    /// ended since it was minted.
    case invalidTicket

    public var code: String {
        switch self {
        case .invalidCredentials: "invalid_credentials"
        case .tooManyAttempts: "too_many_attempts"
        case .invalidToken: "invalid_token"
        case .invalidTicket: "invalid_ticket"
        }
    }

    /// A ticket stands in for the token, so RFC 6750 3.1's `invalid_token`
    /// names its fault too.
    public var category: RefusalCategory {
        switch self {
        case .invalidCredentials: .unauthenticated
        case .invalidToken, .invalidTicket: .invalidToken
        case .tooManyAttempts: .tooManyRequests
        }
    }

    public var retryAfterSeconds: Int? {
        if case .tooManyAttempts(let seconds) = self { seconds } else { nil }
    }

    public var message: String {
        switch self {
        case .invalidCredentials: "The email or the password is wrong."
        case .tooManyAttempts(let seconds): "Too many failed sign-ins; retry in \(Counted.text(seconds, "second"))."
        case .invalidToken: "The bearer token is unknown, expired or revoked."
        case .invalidTicket: "The ticket is unknown, used or expired, or its session has ended; mint a new one."
        }
    }
}

/// A signed-in session as the client that issued it knows it.
public struct AuthenticatedSession: Hashable, Sendable {
    /// The bearer token, shown once at sign-in; only its hash is stored.
    public let token: String
    public let sessionID: String
    public let user: User
    public let expiresAt: Timestamp

    public init(token: String, sessionID: String, user: User, expiresAt: Timestamp) {
        self.token = token
        self.sessionID = sessionID
        self.user = user
        self.expiresAt = expiresAt
    }
}

/// Who a valid bearer token belongs to.
public struct Authentication: Hashable, Sendable {
    public let sessionID: String
    public let user: User
    public let expiresAt: Timestamp

    public init(sessionID: String, user: User, expiresAt: Timestamp) {
        self.sessionID = sessionID
        self.user = user
        self.expiresAt = expiresAt
    }
}

/// A signed-in user asked for something their role does not allow (403).
public struct AccessDenied: Refusal, Hashable {
    public let reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public static let adminOnly = AccessDenied("Only an admin may do this.")

    public var code: String { "forbidden" }
    public var category: RefusalCategory { .forbidden }
    public var message: String { reason }
}
