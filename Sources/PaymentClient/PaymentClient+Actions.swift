import Axiom
import Domain

// What a context asks of the payments; each answers its own type.

extension PaymentClient {
    /// The payment for a newly placed order: waiting, its amount the
    /// order's total, due `payment_timeout` from now. Idempotent by order
    /// id (the existing payment is answered).
    public struct Open: ClientAction {
        let order: Order
        public func run(on payments: isolated PaymentClient) async throws -> Payment { try await payments.open(order) }
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
    /// one owes a refund. Nil for an order without a payment.
    public struct OrderCancelled: ClientAction {
        let orderID: OrderID
        public func run(on payments: isolated PaymentClient) async throws -> Payment? {
            try await payments.change(orderID, .orderCancelled)
        }
    }

    /// An admin recorded money received outside the provider. Nil for an
    /// order without a payment.
    public struct RecordManual: ClientAction {
        let orderID: OrderID, reference: String
        public func run(on payments: isolated PaymentClient) async throws -> Payment? {
            try await payments.change(orderID, .manualSucceeded(reference: reference))
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
    public static func open(_ order: Order) -> Self { Self(order: order) }
}

extension ClientAction where Self == PaymentClient.Apply {
    public static func apply(_ event: PaymentEvent) -> Self { Self(event: event) }
}

extension ClientAction where Self == PaymentClient.OrderCancelled {
    public static func orderCancelled(_ orderID: OrderID) -> Self { Self(orderID: orderID) }
}

extension ClientAction where Self == PaymentClient.RecordManual {
    public static func recordManual(_ orderID: OrderID, reference: String) -> Self {
        Self(orderID: orderID, reference: reference)
    }
}

extension ClientAction where Self == PaymentClient.ExpireDue {
    public static func expireDue(limit: Int) -> Self { Self(limit: limit) }
}

extension ClientAction where Self == PaymentClient.Settle {
    public static func settle(_ id: PaymentID, _ status: PaymentStatus) -> Self { Self(id: id, status: status) }
}
