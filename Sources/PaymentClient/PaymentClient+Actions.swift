import Axiom
import Domain

// What a context asks of the payments; each answers its own type.

extension PaymentClient {
    /// The payment for a newly placed order: waiting, its amount the
    /// order's total, due `payment_timeout` from now (`manual_payment_timeout`
    /// days for a manual method). Idempotent by order id (the existing
    /// payment is answered, a cancelled one included).
    public struct Open: ClientAction {
        let order: Order, method: PaymentMethod
        public func run(on payments: isolated PaymentClient) async throws -> Payment {
            try await payments.open(order, method: method)
        }
    }

    /// A provider event whose signature was checked (`verify`). Applied
    /// once per event id.
    public struct Apply: ClientAction {
        let event: PaymentEvent
        public func run(on payments: isolated PaymentClient) async throws -> PaymentReceipt {
            try await payments.apply(event)
        }
    }

    /// The order is being cancelled: a waiting payment is cancelled, a paid
    /// one owes a refund, a shipping one refuses (`order_shipped`). An
    /// order without a payment yet gets a cancelled one.
    public struct OrderCancelled: ClientAction {
        let order: Order
        public func run(on payments: isolated PaymentClient) async throws -> Payment {
            try await payments.cancel(order)
        }
    }

    /// The order is about to ship: refused unless its payment is paid
    /// (`order_not_paid`), decided under the payment's row lock, so a
    /// cancel of the same order either comes first (and this refuses) or
    /// after (and is refused). Nil for an order without a payment.
    public struct Fulfil: ClientAction {
        let orderID: OrderID
        public func run(on payments: isolated PaymentClient) async throws -> Payment? {
            try await payments.change(orderID, .fulfilling)
        }
    }

    /// An admin recorded money received or given back outside the
    /// provider: a ledger entry with the admin as its actor. Nil for an
    /// order without a payment.
    public struct Record: ClientAction {
        let orderID: OrderID, movement: MoneyMovement
        public func run(on payments: isolated PaymentClient) async throws -> Payment? {
            try await payments.record(orderID, movement)
        }
    }

    /// Expires up to `limit` unpaid payments whose deadline has passed.
    public struct ExpireDue: ClientAction {
        let limit: Int
        public func run(on payments: isolated PaymentClient) async throws -> [Payment] {
            try await payments.expireDue(limit: limit)
        }
    }

    /// The payment's change to this status finished its work in the other
    /// clients. A newer change (another status) stays open for its own
    /// caller or reconciliation.
    public struct Settle: ClientAction {
        let id: PaymentID, status: PaymentStatus
        public func run(on payments: isolated PaymentClient) async throws -> Payment {
            try await payments.settle(id, at: status)
        }
    }
}

extension ClientAction where Self == PaymentClient.Open {
    public static func open(_ order: Order, method: PaymentMethod) -> Self { Self(order: order, method: method) }
}

extension ClientAction where Self == PaymentClient.Apply {
    public static func apply(_ event: PaymentEvent) -> Self { Self(event: event) }
}

extension ClientAction where Self == PaymentClient.OrderCancelled {
    public static func orderCancelled(_ order: Order) -> Self { Self(order: order) }
}

extension ClientAction where Self == PaymentClient.Fulfil {
    public static func fulfil(_ orderID: OrderID) -> Self { Self(orderID: orderID) }
}

extension ClientAction where Self == PaymentClient.Record {
    public static func record(_ movement: MoneyMovement, on orderID: OrderID) -> Self {
        Self(orderID: orderID, movement: movement)
    }
}

extension ClientAction where Self == PaymentClient.ExpireDue {
    public static func expireDue(limit: Int) -> Self { Self(limit: limit) }
}

extension ClientAction where Self == PaymentClient.Settle {
    public static func settle(_ id: PaymentID, _ status: PaymentStatus) -> Self { Self(id: id, status: status) }
}
