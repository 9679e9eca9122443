import Axiom
import CatalogClient
import Domain
import OrderClient
import PaymentClient

/// A session's orders feature: the customer's order reads and cancel
/// (`GET /orders`, `GET /orders/{id}`, `POST /orders/{id}/cancel`) and its
/// shipping address (`PUT /orders/{id}/shipping_address`); also
/// downstream of checkout and admin, which reach orders through it.
/// It holds no state (see `CartContext`).
public final class OrdersContext: Context {
    public let identity: ContextIdentity
    private let orders: ClientHandle<OrderClient>
    private let payments: CheckoutPayments

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        orders = try creation.client(OrderClient.self)
        payments = try CheckoutPayments(creation)
    }

    /// The caller's orders, newest first, each with its payment.
    public func orders(of caller: Authentication, limit: Int, cursor: String?) async throws -> Page<OrderWithPayment> {
        try await payments.withPayments(try await orders.client.orders(for: caller.user.id, limit: limit, after: cursor))
    }

    /// An order with its payment, on the same terms as `order(_:for:)`.
    public func orderWithPayment(_ id: OrderID, for caller: Authentication) async throws -> OrderWithPayment {
        try await payments.withPayment(try await order(id, for: caller))
    }

    /// An order with its payment as read now (admin moves answer with it).
    func withPayment(_ order: Order) async throws -> OrderWithPayment {
        try await payments.withPayment(order)
    }

    /// The caller's order placed with `idempotencyKey` while the key is
    /// kept, if any; `idempotency_key_reused` when it was placed for
    /// another request than `fingerprint` (nil: any request matches).
    public func order(placedBy caller: Authentication, idempotencyKey: String,
                      matching fingerprint: CheckoutFingerprint?) async throws -> Order? {
        try await orders.client.order(userID: caller.user.id, idempotencyKey: idempotencyKey, matching: fingerprint)
    }

    /// An order the user may see: their own, or any for an admin. Another
    /// user's order is "not found", not "forbidden": its existence is not
    /// the caller's business.
    public func order(_ id: OrderID, for caller: Authentication) async throws -> Order {
        let user = caller.user
        let order = try await orders.client.order(id)
        guard order.userID == user.id || user.isAdmin else {
            throw EntityError.notFound(entity: "order", id: id.description)
        }
        return order
    }

    /// Cancels a pending or confirmed order: its payment is cancelled (or,
    /// paid, owes a refund) and its stock returns (once, keyed by the order
    /// id, so a crash before the restock is repaired at start-up).
    public func cancelOrder(_ id: OrderID, for caller: Authentication) async throws -> OrderWithPayment {
        let order = try await order(id, for: caller)
        return try await payments.cancel(order, by: order.userID == caller.user.id ? .customer : .admin,
                                         cause: .requested(by: caller.user.id, owner: order.userID,
                                                           reason: "cancel_requested"))
    }

    /// Gives or replaces the shipping address of the caller's own order
    /// (any order for an admin) while it has not shipped or been cancelled.
    public func address(_ id: OrderID, to address: ShippingAddress,
                        for caller: Authentication) async throws -> OrderWithPayment {
        let order = try await order(id, for: caller)
        return try await payments.withPayment(try await orders.send(.address(order.id, to: address)))
    }

    /// The order's status changes, oldest first, on the same terms as
    /// `order(_:for:)`: each with its time, its actor and its reason.
    public func history(of id: OrderID, for caller: Authentication) async throws -> [OrderHistoryEntry] {
        try await orders.client.history(of: try await order(id, for: caller).id)
    }

    // The caller's role for the four below is checked by `AdminContext`,
    // the only context that reaches them.

    /// Admins record a payment received outside the provider (see
    /// `CheckoutPayments.recordManualPayment`).
    func recordManualPayment(_ id: OrderID, amount: Int64?, reference: String,
                             for caller: Authentication) async throws -> OrderWithPayment {
        try await payments.recordManualPayment(try await order(id, for: caller), amount: amount, reference: reference,
                                               by: caller.user.id)
    }

    /// Admins record a refund made outside the provider.
    func recordManualRefund(_ id: OrderID, amount: Int64, reference: String,
                            for caller: Authentication) async throws -> OrderWithPayment {
        try await payments.recordManualRefund(try await order(id, for: caller), amount: amount, reference: reference,
                                              by: caller.user.id)
    }

    /// Admins ship a paid order.
    func ship(_ id: OrderID, for caller: Authentication) async throws -> OrderWithPayment {
        try await payments.ship(try await order(id, for: caller), by: caller.user.id)
    }

    /// The money movements of an order, oldest first.
    func ledger(_ id: OrderID, for caller: Authentication) async throws -> [LedgerEntry] {
        try await payments.ledger(of: try await order(id, for: caller))
    }

    static func returnKey(_ id: OrderID) -> String { "cancel-\(id)" }

    static func stockLines(of order: Order) -> [StockLine] {
        order.lines.map { StockLine(productID: $0.productID, quantity: $0.quantity) }
    }
}
