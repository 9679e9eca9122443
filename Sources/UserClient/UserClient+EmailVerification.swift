import Capabilities
import Domain

/// Address verification: a link mailed at registration and on an address
/// change (to the new address) confirms the address it was mailed to, once,
/// within `verificationTokenLifetimeSeconds`.
extension UserClient {
    /// `verification_token_invalid` for a token unknown, used, voided,
    /// expired, or mailed to an address the account no longer has.
    public func confirmEmail(token: String) async throws -> User {
        let tokenHash = TokenDigest.sha256Hex(token)
        guard !token.isEmpty, let pending = try await storage.storedRead({ [now = nowMilliseconds()] in
            try AccountTokenStore.pending($0, tokenHash: tokenHash, purpose: .emailVerification, now: now)
        }) else { throw AccountTokenError.verificationTokenInvalid }
        let now = nowMilliseconds()
        let id = pending.userID
        return try await writeUser(id) { handle in
            guard try AccountTokenStore.redeem(handle, tokenHash: tokenHash, purpose: .emailVerification, now: now),
                  let stored = try UserStore.user(handle, id: id), !stored.user.isDeleted,
                  stored.user.email.normalized == pending.emailKey
            else { throw AccountTokenError.verificationTokenInvalid }
            try handle.execute("UPDATE users SET email_verified = 1, version = version + 1 WHERE id = ?", id.description)
        }.0
    }

    /// Mails a new verification link to the account's current address
    /// (voiding the earlier ones), unless it is confirmed already or mail
    /// is off; answers whether one was queued.
    public func resendVerification(_ id: UserID) async throws -> Bool {
        guard accounts.mailEnabled else { return false }
        let token = random.current.token(byteCount: 32, encoding: .base64url)
        let now = nowMilliseconds()
        let lifetime = accounts.verificationTokenLifetimeSeconds
        return try await writeUser(id) { handle -> Bool in
            guard let stored = try UserStore.user(handle, id: id), stored.user.isActive, !stored.user.emailVerified
            else { return false }
            try AccountTokenStore.issue(handle, user: id, purpose: .emailVerification,
                                        emailKey: stored.user.email.normalized, tokenHash: TokenDigest.sha256Hex(token),
                                        now: now, lifetimeSeconds: lifetime)
            try handle.enqueue(try AccountMail(.verifyEmail, userID: id, token: token,
                                               address: stored.user.email.address).job(at: now))
            return true
        }.1
    }
}
