/// A movement of money asked for, before it is a ledger entry: what kind,
/// how much, through which method, under which provider or admin reference,
/// from which provider event, by whom.
public struct MoneyMovement: Hashable, Sendable {
    public let kind: LedgerKind
    public let amount: Money
    public let method: PaymentMethod
    /// The provider's charge or refund id, or an admin's transfer reference:
    /// one movement per (payment, kind, reference), so a second event or a
    /// retried request for the same refund records it once.
    public let reference: String?
    public let eventID: String?
    public let actor: LedgerActor

    public init(kind: LedgerKind, amount: Money, method: PaymentMethod, reference: String?, eventID: String?,
                actor: LedgerActor) {
        self.kind = kind
        self.amount = amount
        self.method = method
        self.reference = reference
        self.eventID = eventID
        self.actor = actor
    }
}
