import Capabilities
import Domain

/// Account deletion: the user's row is kept, so orders, payments and the
/// ledger keep a customer, but anonymised in one commit: name and address
/// replaced, the address freed for a new account, the password hash
/// cleared, status `deleted` (no sign-in, no admin change), every session
/// ended (on every replica, through the change feed), every mailed token
/// gone, and the erasure of what other clients hold queued
/// (`AccountErasure`).
extension UserClient {
    /// The name a deleted account keeps.
    public static let deletedName = "Deleted user"

    /// Needs the current password (`invalid_credentials`, counted in the
    /// sign-in throttle like a profile change's). Deleting a deleted
    /// account is a no-op; the last active admin cannot be deleted
    /// (`last_admin`).
    public func deleteAccount(_ id: UserID, password: String, clientAddress: String) async throws {
        let before = try await user(id)
        guard !before.isDeleted else { return }
        let account = before.email.normalized
        try await admitSignIn(account: account, address: clientAddress)
        let stored = try await storage.storedRead { try UserStore.user($0, id: id) }
        guard try await verifyAdmitted(password, against: stored?.passwordHash ?? decoyHash,
                                       account: account, address: clientAddress) else {
            throw AuthenticationError.invalidCredentials
        }
        try await signInSucceeded(account: account, address: clientAddress)
        let now = nowMilliseconds()
        let placeholder = try Email("deleted-\(id)@deleted.invalid")
        let (_, revoked) = try await writeUser(id) { handle -> [UserStore.StoredSession] in
            guard let current = try UserStore.user(handle, id: id), !current.user.isDeleted else { return [] }
            try UserStore.lockActiveAdmins(handle)
            let wasActiveAdmin = try UserStore.isActiveAdmin(handle, id: id)
            try handle.execute("""
                UPDATE users SET name = ?, email = ?, email_key = ?, password_hash = '', status = 'suspended',
                email_verified = 0, deleted_at = ?, version = version + 1 WHERE id = ?
                """, Self.deletedName, placeholder.address, placeholder.normalized, now, id.description)
            if wasActiveAdmin, try UserStore.activeAdminCount(handle) == 0 { throw UserError.lastAdmin(id) }
            try AccountTokenStore.deleteAll(handle, user: id)
            try handle.enqueue(try AccountErasure(userID: id).job(at: now))
            return try UserStore.deleteSessions(handle, user: id, except: nil)
        }
        forget(revoked)
    }
}
