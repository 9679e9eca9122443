import FoundationEssentials

/// A mail about an account, queued as an `account.mail` job in the same
/// write transaction as the change it tells of (no notice for a reset that
/// rolled back, none lost for one that committed). The payload names the
/// mail, the user and, where the mail carries one, the raw token of its
/// link, and the address to write to when it is not the account's own
/// (the old address told of a change): the kind is `sensitive`, so the
/// payload is erased when the job finishes and never shown to admins.
public struct AccountMail: Sendable, Hashable, Codable {
    public static let kind = JobKind("account.mail", maxAttempts: 10, sensitive: true)

    public enum Template: String, Sendable, Hashable, Codable, CaseIterable {
        /// A link that sets a new password (`POST /password-resets`).
        case passwordReset = "password_reset"
        /// The password was reset: every session ended.
        case passwordResetDone = "password_reset_done"
        /// A link that confirms the address (registration, a new address).
        case verifyEmail = "verify_email"
        /// To the old address: the account's address changed.
        case emailChanged = "email_changed"
        /// Someone tried to register with an address that has an account.
        case registrationAttempt = "registration_attempt"

        /// The file stem under `config/mail/`.
        public var templateName: String { "account/\(rawValue)" }
    }

    public let mail: Template
    public let userID: UserID
    /// The raw token of the mail's link (only its hash is stored elsewhere).
    public let token: String?
    /// Where to write instead of the account's current address.
    public let address: String?

    public init(_ mail: Template, userID: UserID, token: String? = nil, address: String? = nil) {
        self.mail = mail
        self.userID = userID
        self.token = token
        self.address = address
    }

    enum CodingKeys: String, CodingKey {
        case mail
        case userID = "user_id"
        case token, address
    }

    /// The job that sends it, due at `now`. A registration attempt is
    /// unique per account while one is queued, so a flood of attempts at
    /// one address queues one mail, not one each.
    public func job(at now: Int64) throws -> JobRequest {
        let payload = Array(try JSONEncoder().encode(self))
        let unique = mail == .registrationAttempt ? "\(mail.rawValue):\(userID)" : nil
        return JobRequest(kind: Self.kind, payload: payload, uniqueKey: unique, runAt: now)
    }

    /// The payload of a claimed job.
    public init(payload: [UInt8]) throws {
        self = try JSONDecoder().decode(AccountMail.self, from: Data(payload))
    }
}
