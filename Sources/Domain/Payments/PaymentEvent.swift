/// One provider notification, after its signature was checked: the event's
/// own id (each applied once), what happened, to which payment, for how much.
public struct PaymentEvent: Hashable, Sendable {
    /// At most this many bytes of event id are accepted and stored.
    public static let maxIDBytes = 255

    public let id: String
    public let type: PaymentEventType
    public let paymentID: PaymentID
    public let amount: Money

    public init(id: String, type: PaymentEventType, paymentID: PaymentID, amount: Money) {
        self.id = id
        self.type = type
        self.paymentID = paymentID
        self.amount = amount
    }
}
