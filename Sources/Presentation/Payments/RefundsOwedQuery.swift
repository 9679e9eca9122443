import Domain

/// `GET /payments/refunds-owed`: a `Page` of payments that owe money back
/// (each with its `refund_owed`), by payment id; the cursor is the last
/// payment's id.
enum RefundsOwedQuery {
    /// The cursor as a payment id; `validation_failed` naming `cursor` otherwise.
    static func cursor(_ page: PageRequest) throws -> PaymentID? {
        guard let text = page.cursor else { return nil }
        guard let id = PaymentID(text) else {
            throw ValidationError([FieldError(
                field: "cursor", code: .invalidFormat, message: "cursor is not one this service issued")])
        }
        return id
    }
}
