import Capabilities
import Domain

/// One-use tickets for `GET /events?ticket=…`: a browser's `EventSource`
/// cannot send `Authorization`, and a bearer token in a URL would end up in
/// histories and proxy logs. A ticket is 256 bits from the CSPRNG, valid
/// for `ticketLifetime`, bound to the session that minted it, kept only as
/// a hash in the database (`EventTicketStore`), so any replica redeems it,
/// and gone at its first use, right or wrong, on whichever replica.
extension UserClient {
    /// A ticket stays valid this long after it is minted: enough for a page
    /// to open its stream, short enough that a leaked one is soon worthless.
    public static let ticketLifetimeMilliseconds: Int64 = 30_000

    /// A ticket for the session of `token` (`invalid_token` when that
    /// session is not valid now).
    public func issueEventTicket(token: String) async throws -> EventTicket {
        let tokenHash = TokenDigest.sha256Hex(token)
        let caller = try await authenticate(tokenHash: tokenHash)
        let ticket = random.current.token(byteCount: 32, encoding: .base64url)
        let now = nowMilliseconds()
        let expiresAt = min(now + Self.ticketLifetimeMilliseconds, caller.expiresAt.millisecondsSince1970)
        let entry = EventTicketStore.Entry(sessionID: caller.sessionID, tokenHash: tokenHash, expiresAt: expiresAt)
        let ticketHash = TokenDigest.sha256Hex(ticket)
        let kept = try await storage.durableWrite { try EventTicketStore.insert($0, entry, ticketHash: ticketHash) }
        // Revoked since `authenticate` answered (here or on another replica).
        guard kept else { throw AuthenticationError.invalidToken }
        return EventTicket(ticket: ticket, expiresAt: Timestamp(millisecondsSince1970: expiresAt))
    }

    /// Uses `ticket`: the session it was minted for, checked as its token
    /// would be now (a session signed out, revoked or expired since is
    /// refused). `invalid_ticket` for an unknown, used or expired ticket
    /// and for one whose session is no longer valid.
    public func redeemEventTicket(_ ticket: String) async throws -> Authentication {
        let ticketHash = TokenDigest.sha256Hex(ticket)
        let now = nowMilliseconds()
        guard let entry = try await storage.durableWrite({
            try EventTicketStore.take($0, ticketHash: ticketHash, now: now)
        }) else {
            throw AuthenticationError.invalidTicket
        }
        do {
            let caller = try await authenticate(tokenHash: entry.tokenHash)
            guard caller.sessionID == entry.sessionID else { throw AuthenticationError.invalidTicket }
            return caller
        } catch AuthenticationError.invalidToken {
            throw AuthenticationError.invalidTicket
        }
    }

    /// Unused tickets in the database now (expired ones until the sweep).
    public nonisolated func heldEventTickets() async throws -> Int {
        try await storage.storedRead { try EventTicketStore.count($0) }
    }
}
