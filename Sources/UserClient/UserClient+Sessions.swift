import Axiom
import Capabilities
import Domain
import FoundationEssentials

/// Sign-in sessions: the token check reads the working set and, on a miss,
/// the `sessions` row by its token hash's unique index (so signed-in users
/// stay signed in across a restart that loaded nothing). Revoked or expired
/// sessions are never accepted: a revocation deletes the rows first, then
/// forgets what the working set holds, and a miss read that overlapped a
/// revocation is not kept.
extension UserClient {
    public func login(email: String, password: String, clientAddress: String) async throws -> AuthenticatedSession {
        let account = Email.normalizedKey(email)
        try await admitSignIn(account: account, address: clientAddress)
        // An unknown email is verified against the decoy, so it costs what
        // a wrong password costs.
        let stored = try await storage.storedRead { try UserStore.user($0, emailKey: account) }
        let hash = stored?.passwordHash ?? decoyHash
        let matches = try await verifyAdmitted(password, against: hash, account: account, address: clientAddress)
        // A failure stays counted (it was counted when admitted). A
        // suspended account is answered as a wrong password whatever the
        // password, and counted as one: a distinct answer after the hash
        // matched would confirm a guessed password to whoever holds it.
        guard matches, let user = stored?.user, user.canLogIn else { throw AuthenticationError.invalidCredentials }

        let token = random.current.token(byteCount: 32, encoding: .base64url)
        let created = nowMilliseconds()
        let session = UserStore.StoredSession(id: RandomUUID.make().uuidString.lowercased(), userID: user.id,
                                              tokenHash: TokenDigest.sha256Hex(token),
                                              expiresAt: created + sessionLifetime)
        let started = sessions.start(of: session.tokenHash)
        let policy = loginPolicy
        try await storage.durableWrite { handle in
            // Checked in the transaction that opens the session: a
            // suspension, or a password change (which revoked the user's
            // other sessions), committed while this sign-in hashed must not
            // be outlived by a session opened with the old state.
            guard let now = try UserStore.user(handle, id: user.id), now.user.canLogIn else {
                throw AuthenticationError.invalidCredentials
            }
            guard now.passwordHash == hash else { throw AuthenticationError.invalidCredentials }
            try UserStore.insert(handle, session, createdAt: created)
            // The attempt given back in the session's commit: the success
            // path pays no commit of its own for the throttle.
            try LoginThrottleStore.succeeded(handle, policy: policy, account: account, address: clientAddress,
                                             now: created)
        }
        // A revocation that resumed first may have deleted it already; the
        // next check then reads storage instead.
        _ = sessions.fill([Versioned(session.tokenHash, session, version: 0)], startedAt: started)
        return AuthenticatedSession(token: token, sessionID: session.id, user: user,
                                    expiresAt: Timestamp(millisecondsSince1970: session.expiresAt))
    }

    /// Who `token` belongs to. `invalid_token` when unknown, expired,
    /// revoked, or its user is suspended. A token verified recently is
    /// answered from the verified working set, without a read.
    public nonisolated func authenticate(token: String) async throws -> Authentication {
        let tokenHash = TokenDigest.sha256Hex(token)
        if let verified = verifiedAuthentication(tokenHash: tokenHash) { return verified }
        return try await authenticate(tokenHash: tokenHash)
    }

    /// `authenticate(token:)` by the token's hash (an event ticket holds
    /// the hash of the token that minted it, never the token).
    nonisolated func authenticate(tokenHash: String) async throws -> Authentication {
        let now = nowMilliseconds()
        let started = verified.start(of: tokenHash)
        let session: UserStore.StoredSession
        var readAlong: (row: UserStore.StoredUser, started: VersionedWorkingSet<UserID, User>.Start)?
        if let hit = sessions.lookup(tokenHash) {
            session = hit
        } else {
            let started = sessions.start(of: tokenHash)
            let usersStarted = users.start()
            // The session and its user in one read: a session not held is
            // a first request after a restart or an eviction, whose user is
            // seldom held either, and each read is a hop to a reader and
            // back. The user row is kept in the user's turn only if no user
            // changed meanwhile (`user(_:readAlong:)`).
            guard let (stored, user) = try await storage.storedRead({ handle -> (UserStore.StoredSession, UserStore.StoredUser?)? in
                guard let session = try UserStore.session(handle, tokenHash: tokenHash, now: now) else { return nil }
                return (session, try UserStore.user(handle, id: session.userID))
            }) else { throw AuthenticationError.invalidToken }
            // Read while a session was revoked: it may be that one, so it is
            // not kept (this request overlapped the revocation and may pass,
            // as it would have a moment earlier; the next one reads again).
            _ = sessions.fill([Versioned(tokenHash, stored, version: 0)], startedAt: started)
            session = stored
            readAlong = user.map { ($0, usersStarted) }
        }
        guard session.expiresAt > now else {
            sessions.forget(tokenHash)
            throw AuthenticationError.invalidToken
        }
        let user: User
        do {
            user = if let readAlong {
                self.user(session.userID, readAlong: readAlong.row, startedAt: readAlong.started)
            } else {
                try await self.user(session.userID)
            }
        } catch EntityError.notFound(entity: "user", id: _) {
            throw AuthenticationError.invalidToken
        }
        guard user.isActive else { throw AuthenticationError.invalidToken }
        let authentication = Authentication(sessionID: session.id, user: user,
                                            expiresAt: Timestamp(millisecondsSince1970: session.expiresAt))
        // Not kept if the session or its user changed meanwhile.
        _ = verified.fill([Versioned(tokenHash, authentication, version: 0)], startedAt: started)
        return authentication
    }

    /// `authenticate`'s answer for the token when it gave one recently and
    /// nothing revoked the session or changed its user since; nil means
    /// "read it". The answers sit in a `VersionedWorkingSet` whose entries
    /// every revocation and every change of their user forgets.
    nonisolated func verifiedAuthentication(tokenHash: String) -> Authentication? {
        guard let answer = verified.lookup(tokenHash) else { return nil }
        guard answer.expiresAt.millisecondsSince1970 > clock.millisecondsSince1970() else {
            verified.forget(tokenHash)
            return nil
        }
        return answer
    }

    /// Revokes the session; revoking twice is harmless.
    public func logout(sessionID: String) async throws {
        // Forgotten before the delete (no check passes once sign-out has
        // begun) and after it (an answer kept while it was committed).
        verified.forget { $0.sessionID == sessionID }
        let tokenHash = try await storage.durableWrite { try UserStore.deleteSession($0, id: sessionID) }
        if let tokenHash {
            sessions.forget(tokenHash)
        } else {
            sessions.forget { $0.id == sessionID }
        }
        verified.forget { $0.sessionID == sessionID }
        stateBroadcaster.publish(.sessionEnded(sessionID: sessionID), key: sessionID)
    }

    /// Deletes the sessions whose token has expired, from storage and from
    /// memory. An expired token is refused anyway; this keeps the table and
    /// the working set from holding tokens nobody presents again. Returns
    /// how many were removed from memory. Expired event tickets and
    /// sign-in throttle runs past their window and mailed account tokens
    /// past their expiry go in the same sweep.
    /// Deletes every session whose token has expired; answers how many were held.
    public func removeExpiredSessions() async throws -> Int {
        let now = nowMilliseconds()
        let policy = loginPolicy
        let step = Self.sweepStep
        // Tokens stay past their expiry for the reset window: the
        // per-account throttle counts the links issued in it.
        let tokensBefore = now - max(accounts.resetWindowSeconds, 0) * 1000
        // In steps of at most `sweepStep` rows a table, each its own write:
        // the first sweep after a long stop can find a million expired
        // sessions, and one request's write is held (with its savepoint's
        // journal, in memory) in the batch every other request shares.
        var more = true
        while more {
            more = try await storage.durableWrite { handle in
                let sessions = try UserStore.deleteExpiredSessions(handle, now: now, limit: step)
                let tickets = try EventTicketStore.deleteExpired(handle, now: now, limit: step)
                let throttle = try LoginThrottleStore.sweep(handle, policy: policy, now: now, limit: step)
                let tokens = try AccountTokenStore.deleteExpired(handle, before: tokensBefore, limit: step)
                return sessions == step || tickets == step || throttle || tokens == step
            }
        }
        let expired = sessions.forget { $0.expiresAt <= now }
        verified.forget { $0.expiresAt.millisecondsSince1970 <= now }
        for session in expired {
            stateBroadcaster.publish(.sessionEnded(sessionID: session.id), key: session.id)
        }
        return expired.count
    }

    /// Sessions held in memory now (at most `sessionCacheEntries`).
    public var liveSessionCount: Int { sessions.count }

    /// Forgets `revoked` (already deleted from storage), held or not, and
    /// ends their contexts' live streams.
    func forget(_ revoked: [UserStore.StoredSession]) {
        let ids = Set(revoked.map(\.id))
        verified.forget { ids.contains($0.sessionID) }
        for session in revoked {
            sessions.forget(session.tokenHash)
            stateBroadcaster.publish(.sessionEnded(sessionID: session.id), key: session.id)
        }
    }
}
