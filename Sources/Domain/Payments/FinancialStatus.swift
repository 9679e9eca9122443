/// What a payment's amounts say, derived and never stored: nothing paid,
/// paid in full, partly or wholly given back, or more taken than the order
/// costs (a second payment). Shopify's and Saleor's financial statuses.
public enum FinancialStatus: String, Hashable, Sendable, Codable, CaseIterable {
    case unpaid
    case paid
    case partiallyRefunded = "partially_refunded"
    case refunded
    case overpaid

    /// From the payment's amount, what came in and what went back.
    public init(amount: Int64, paid: Int64, refunded: Int64) {
        if paid == 0 && refunded == 0 {
            self = .unpaid
        } else if refunded >= paid {
            self = .refunded
        } else if paid - refunded > amount {
            self = .overpaid
        } else if refunded > 0 {
            self = .partiallyRefunded
        } else if paid < amount {
            // Less than the order costs came in: still owed.
            self = .unpaid
        } else {
            self = .paid
        }
    }
}
