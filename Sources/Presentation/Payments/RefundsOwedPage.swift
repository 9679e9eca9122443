import Domain

/// `GET /payments/refunds-owed`: `{items, next_cursor}` of payments that
/// owe money back (each with its `refund_owed`), by payment id; the cursor
/// is the last payment's id.
struct RefundsOwedPage: Encodable {
    let items: [Payment]
    let nextCursor: String?

    enum CodingKeys: String, CodingKey {
        case items
        case nextCursor = "next_cursor"
    }

    /// A page of `limit` from up to `limit + 1` payments read.
    init(_ payments: [Payment], limit: Int) {
        items = Array(payments.prefix(limit))
        nextCursor = payments.count > limit ? items.last?.id.description : nil
    }

    /// The cursor as a payment id; `validation_failed` naming `cursor` otherwise.
    static func cursor(_ page: PageRequest) throws -> PaymentID? {
        guard let text = page.cursor else { return nil }
        guard let id = PaymentID(text) else {
            throw DomainError.validation(ValidationError([FieldError(
                field: "cursor", code: .invalidFormat, message: "cursor is not one this service issued")]))
        }
        return id
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(nextCursor, forKey: .nextCursor)
    }
}
