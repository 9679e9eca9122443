import Capabilities
import Domain

/// One-use tickets for `GET /events?ticket=…`: a browser's `EventSource`
/// cannot send `Authorization`, and a bearer token in a URL would end up in
/// histories and proxy logs. A ticket is 256 bits from the CSPRNG, valid
/// for `ticketLifetime`, bound to the session that minted it, kept only as
/// a hash (`EventTickets`), and gone at its first use, right or wrong.
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
        tickets.insert(EventTickets.Entry(sessionID: caller.sessionID, tokenHash: tokenHash, expiresAt: expiresAt),
                       for: TokenDigest.sha256Hex(ticket), now: now)
        return EventTicket(ticket: ticket, expiresAt: Timestamp(millisecondsSince1970: expiresAt))
    }

    /// Uses `ticket`: the session it was minted for, checked as its token
    /// would be now (a session signed out, revoked or expired since is
    /// refused). `invalid_ticket` for an unknown, used or expired ticket
    /// and for one whose session is no longer valid.
    public func redeemEventTicket(_ ticket: String) async throws -> Authentication {
        guard let entry = tickets.take(TokenDigest.sha256Hex(ticket), now: nowMilliseconds()) else {
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

    /// Tickets held now (at most `sessionCacheEntries`).
    public var heldEventTickets: Int { tickets.count }
}
