import Axiom
import Domain

/// Typed actions for contexts: each goes through `send`, so it is counted
/// and timed in the client's metrics like any other action.
extension ClientHandle where C == PaymentClient {
    public func open(for order: Order) async throws -> Payment {
        try Self.payment(await send(.open(order)))
    }

    public func apply(_ event: PaymentEvent) async throws -> PaymentReceipt {
        guard case .receipt(let receipt) = try await send(.apply(event)) else { throw Self.unexpected }
        return receipt
    }

    /// Nil for an order without a payment (placed before payments existed).
    public func orderCancelled(_ orderID: OrderID) async throws -> Payment? {
        guard case .payment(let payment) = try await send(.orderCancelled(orderID)) else { throw Self.unexpected }
        return payment
    }

    public func recordManual(_ orderID: OrderID, reference: String) async throws -> Payment {
        guard case .payment(let payment) = try await send(.recordManual(orderID, reference: reference)),
              let payment else { throw DomainError.notFound(entity: "payment", id: orderID.description) }
        return payment
    }

    public func expireDue(limit: Int) async throws -> [Payment] {
        guard case .payments(let payments) = try await send(.expireDue(limit: limit)) else { throw Self.unexpected }
        return payments
    }

    @discardableResult
    public func settle(_ id: PaymentID, at status: PaymentStatus) async throws -> Payment {
        try Self.payment(await send(.settle(id, status)))
    }

    private static func payment(_ outcome: PaymentOutcome) throws -> Payment {
        guard case .payment(let payment?) = outcome else { throw unexpected }
        return payment
    }

    private static var unexpected: PaymentDataError {
        PaymentDataError(description: "the payments client answered with an unexpected outcome")
    }
}
