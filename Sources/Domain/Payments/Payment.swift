/// A payment to be made for one order: the amount frozen from the order's
/// total, a deadline, how far it got (`status`), and the sums of its
/// ledger (`paid`, `refunded`), from which what is owed either way is
/// derived. Immutable: a change returns a new payment (`applying(_:)` for
/// the order's life, `recording(_:)` for money), following the
/// `PaymentStatus` table.
public struct Payment: Hashable, Sendable, Identifiable {
    public let id: PaymentID
    public let orderID: OrderID
    public let userID: UserID
    public let status: PaymentStatus
    public let amount: Money
    /// How the customer chose to pay at checkout (`manual` once an admin
    /// recorded a provider payment's money as received by hand).
    public let method: PaymentMethod
    /// Unpaid at this instant, the system cancels the order.
    public let expiresAt: Timestamp
    /// What an admin recorded with the first manual payment (a transfer's
    /// reference); every movement's own reference is in the ledger.
    public let reference: String?
    /// Minor units in: the sum of the ledger's charges and manual payments.
    public let paid: Int64
    /// Minor units out: the sum of its refunds and chargebacks.
    public let refunded: Int64
    /// The order is shipping: it can no longer be cancelled by its payment.
    public let fulfilled: Bool

    public init(id: PaymentID, orderID: OrderID, userID: UserID, status: PaymentStatus, amount: Money,
                method: PaymentMethod, expiresAt: Timestamp, reference: String?, paid: Int64 = 0,
                refunded: Int64 = 0, fulfilled: Bool = false) {
        self.id = id
        self.orderID = orderID
        self.userID = userID
        self.status = status
        self.amount = amount
        self.method = method
        self.expiresAt = expiresAt
        self.reference = reference
        self.paid = paid
        self.refunded = refunded
        self.fulfilled = fulfilled
    }

    /// A new payment waiting for the provider or, for a manual method, for
    /// an admin to record the money.
    public static func open(id: PaymentID, for order: Order, method: PaymentMethod = .provider,
                            expiresAt: Timestamp) -> Payment {
        Payment(id: id, orderID: order.id, userID: order.userID, status: .requiresPayment, amount: order.total,
                method: method, expiresAt: expiresAt, reference: nil)
    }

    /// What the amounts say (see `FinancialStatus`).
    public var financialStatus: FinancialStatus {
        FinancialStatus(amount: amount.amount, paid: paid, refunded: refunded)
    }

    /// What the order should have kept: its total while it stands, nothing
    /// once it is cancelled.
    public var kept: Int64 { status.orderFollows == .cancelled ? 0 : amount.amount }

    /// Minor units the shop owes back: kept beyond what the order should
    /// keep. Refunds never exceed what was paid (`recording(_:)`); a row
    /// stored before that rule reads as owing nothing rather than trapping.
    public var refundOwed: Int64 {
        guard refunded <= paid else { return 0 }
        return max(0, paid - refunded - kept)
    }

    /// Minor units the customer still owes: only a payable payment is
    /// due; a refund the shop made on a standing order is not a debt.
    public var amountDue: Int64 { status == .requiresPayment ? max(0, amount.amount - held) : 0 }

    /// Minor units the shop holds: what came in less what went back.
    public var held: Int64 { paid - min(paid, refunded) }

    /// The payment after `change`; nil when the change has nothing left to
    /// do (it happened already, or it no longer matters: an expiry of a
    /// payment paid meanwhile). Throws for an order shipping while its
    /// payment is not paid (`order_not_paid`) or cancelled after it started
    /// shipping (`order_shipped`). A provider's decline is no change at
    /// all: the payment stays payable until it expires, as a PaymentIntent
    /// returns to requires_payment_method.
    public func applying(_ change: PaymentChange) throws(PaymentError) -> Payment? {
        switch (change, status) {
        case (.expired, .requiresPayment):
            return with(status: paid > refunded ? .refundPending : .expired)
        case (.expired, _):
            return nil
        case (.orderCancelled, _) where fulfilled:
            throw .orderShipped(id)
        case (.orderCancelled, .requiresPayment):
            // Part of it may have come in (a first bank transfer): owed back.
            return with(status: paid > refunded ? .refundPending : .cancelled)
        case (.orderCancelled, .succeeded):
            return with(status: paid > refunded ? .refundPending : .refunded)
        case (.orderCancelled, _):
            return nil
        case (.fulfilling, .succeeded) where paid > refunded:
            // Partly refunded (a discount) still ships; all given back does not.
            return fulfilled ? nil : with(fulfilled: true)
        case (.fulfilling, _):
            throw .orderNotPaid(id, status: status)
        }
    }

    private func with(status next: PaymentStatus? = nil, method nextMethod: PaymentMethod? = nil,
                      reference nextReference: String? = nil, paid nextPaid: Int64? = nil,
                      refunded nextRefunded: Int64? = nil, fulfilled nextFulfilled: Bool? = nil) -> Payment {
        Payment(id: id, orderID: orderID, userID: userID, status: next ?? status, amount: amount,
                method: nextMethod ?? method, expiresAt: expiresAt, reference: nextReference ?? reference,
                paid: nextPaid ?? paid, refunded: nextRefunded ?? refunded, fulfilled: nextFulfilled ?? fulfilled)
    }
}

extension Payment {
    /// The payment after `movement`. Money coming in pays a waiting payment
    /// once what the shop holds covers the amount (less leaves it waiting,
    /// with `amountDue`);
    /// money coming in for an order the shop gave up on is owed back
    /// (`refund_pending`); a refund that settles what was owed makes it
    /// `refunded`. Throws for another currency or a sum beyond Int64
    /// (`amount_mismatch`), and for a refund or chargeback beyond what was
    /// paid (`refund_exceeds_paid`), whoever reports it: the ledger never
    /// gives back more than it took (a provider's such event is kept as an
    /// anomaly by the payments client instead).
    public func recording(_ movement: MoneyMovement) throws(PaymentError) -> Payment {
        guard movement.amount.currency == amount.currency, movement.amount.amount > 0 else {
            throw .amountMismatch(expected: amount, got: movement.amount)
        }
        let value = movement.amount.amount
        if movement.kind.isIncoming {
            let (total, overflow) = paid.addingReportingOverflow(value)
            guard !overflow else { throw .amountMismatch(expected: amount, got: movement.amount) }
            let next: PaymentStatus = switch status {
            case .requiresPayment: total - min(total, refunded) >= amount.amount ? .succeeded : .requiresPayment
            case .succeeded: .succeeded
            case .failed, .expired, .cancelled, .refundPending, .refunded: .refundPending
            }
            let firstManual = movement.kind == .manualPayment && status == .requiresPayment && paid == 0
            return with(status: next, method: firstManual && method == .provider ? .manual : nil,
                        reference: firstManual ? movement.reference : nil, paid: total)
        }
        let refundable = Money(amount: held, currency: amount.currency)
        guard value <= refundable.amount else { throw .refundExceedsPaid(id, refundable: refundable) }
        let changed = with(refunded: refunded + value)
        let settled = changed.status == .refundPending && changed.refundOwed == 0
        return settled ? changed.with(status: .refunded) : changed
    }
}
