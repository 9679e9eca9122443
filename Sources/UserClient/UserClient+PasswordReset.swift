import Capabilities
import Domain

/// Password reset (OWASP Forgot Password): a request answers the same
/// whether or not the address has an account, a link carries 32 random
/// bytes of which only the SHA-256 is stored, works once and for
/// `resetTokenLifetimeSeconds`, and a new one voids the earlier ones;
/// completing it sets the password, ends every session of the user (on
/// every replica: the revocations go through the change feed) and mails
/// the owner a notice.
extension UserClient {
    /// Mails a reset link to the account of `email`, if there is an active
    /// one and it was mailed fewer than `resetsPerAccount` links in the
    /// window. Known or not, the work is one read and one commit in the
    /// same write, so the time does not tell either.
    public func requestPasswordReset(email: String) async throws {
        let key = Email.normalizedKey(email)
        let token = random.current.token(byteCount: 32, encoding: .base64url)
        let now = nowMilliseconds()
        let settings = accounts
        try await storage.durableWrite { handle in
            guard settings.mailEnabled, let stored = try UserStore.user(handle, emailKey: key), stored.user.isActive
            else { return }
            let since = now - settings.resetWindowSeconds * 1000
            guard try AccountTokenStore.issuedCount(handle, user: stored.user.id, purpose: .passwordReset,
                                                    since: since) < settings.resetsPerAccount else { return }
            try AccountTokenStore.issue(handle, user: stored.user.id, purpose: .passwordReset, emailKey: key,
                                        tokenHash: TokenDigest.sha256Hex(token), now: now,
                                        lifetimeSeconds: settings.resetTokenLifetimeSeconds)
            try handle.enqueue(try AccountMail(.passwordReset, userID: stored.user.id, token: token).job(at: now))
        }
    }

    /// Sets the password of the token's account and ends all its sessions.
    /// `validation_failed` (password policy, before the token is looked
    /// at); `reset_token_invalid` for a token unknown, used, voided or
    /// expired, or whose account is no longer active. The token is marked
    /// used in the commit that sets the password, so of two completions
    /// racing on any replica one wins. Following the link proves the
    /// mailbox, so the address counts as confirmed when it is still the one
    /// the link went to.
    @discardableResult
    public func completePasswordReset(_ completion: PasswordResetCompletion) async throws -> User {
        if let errors = completion.validate() { throw errors }
        let tokenHash = TokenDigest.sha256Hex(completion.token)
        guard let pending = try await storage.storedRead({ [now = nowMilliseconds()] in
            try AccountTokenStore.pending($0, tokenHash: tokenHash, purpose: .passwordReset, now: now)
        }) else { throw AccountTokenError.resetTokenInvalid }
        let hash = try await hashPassword(completion.password)
        let now = nowMilliseconds()
        let mails = accounts.mailEnabled
        let id = pending.userID
        let (user, revoked) = try await writeUser(id) { handle -> [UserStore.StoredSession] in
            guard try AccountTokenStore.redeem(handle, tokenHash: tokenHash, purpose: .passwordReset, now: now),
                  let stored = try UserStore.user(handle, id: id), stored.user.isActive
            else { throw AccountTokenError.resetTokenInvalid }
            let confirms = stored.user.email.normalized == pending.emailKey
            try handle.execute("""
                UPDATE users SET password_hash = ?, email_verified = CASE WHEN ? = 1 THEN 1 ELSE email_verified END,
                version = version + 1 WHERE id = ?
                """, hash, confirms ? 1 : 0, id.description)
            try AccountTokenStore.void(handle, user: id, now: now)
            if mails { try handle.enqueue(try AccountMail(.passwordResetDone, userID: id).job(at: now)) }
            return try UserStore.deleteSessions(handle, user: id, except: nil)
        }
        forget(revoked)
        return user
    }
}
