import Domain

/// `POST /events/tickets`' answer: the ticket, shown once, and when it
/// stops opening a stream.
struct EventTicketBody: Encodable {
    let ticket: String
    let expiresAt: Timestamp

    init(_ ticket: EventTicket) {
        self.ticket = ticket.ticket
        expiresAt = ticket.expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case ticket
        case expiresAt = "expires_at"
    }
}
