/// A one-use ticket that opens the minting session's live-update stream
/// (`GET /events?ticket=…`) where no `Authorization` header can be sent: a
/// browser's `EventSource` sends none. Shown once; only its hash is kept.
public struct EventTicket: Hashable, Sendable {
    public let ticket: String
    public let expiresAt: Timestamp

    public init(ticket: String, expiresAt: Timestamp) {
        self.ticket = ticket
        self.expiresAt = expiresAt
    }
}
