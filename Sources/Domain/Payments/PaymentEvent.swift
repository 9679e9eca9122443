/// One provider notification, after its signature was checked: the event's
/// own id (each applied once), what happened, to which payment, for how much.
public struct PaymentEvent: Hashable, Sendable {
    /// At most this many bytes of event id are accepted and stored.
    public static let maxIDBytes = 255

    public let id: String
    public let type: PaymentEventType
    public let paymentID: PaymentID
    public let amount: Money
    /// The provider's id of the charge or refund, when it sends one: two
    /// events naming the same refund record it once.
    public let reference: String?

    public init(id: String, type: PaymentEventType, paymentID: PaymentID, amount: Money, reference: String? = nil) {
        self.id = id
        self.type = type
        self.paymentID = paymentID
        self.amount = amount
        self.reference = reference
    }

    /// The ledger movement this event reports; nil for a decline, which
    /// moves no money.
    public var movement: MoneyMovement? {
        let kind: LedgerKind
        switch type {
        case .paymentSucceeded: kind = .charge
        case .refundSucceeded: kind = .refund
        case .chargebackCreated: kind = .chargeback
        case .paymentFailed: return nil
        }
        return MoneyMovement(kind: kind, amount: amount, method: .provider, reference: reference, eventID: id,
                             actor: .provider)
    }
}
