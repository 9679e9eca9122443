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
public final class OrdersContext: SessionFeature {
    public let identity: ContextIdentity
    public let caller: SessionCaller
    private let orders: ClientHandle<OrderClient>
    private let payments: CheckoutPayments

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        caller = try SessionCaller.of(creation)
        orders = try creation.client(OrderClient.self)
        payments = try CheckoutPayments(creation)
    }

    /// The caller's orders, newest first, each with its payment.
    public func orders(limit: Int, cursor: String?) async throws -> Page<OrderWithPayment> {
        let user = try caller.current.user.id
        return try await payments.withPayments(try await orders.call { try await $0.orders(for: user, limit: limit, after: cursor) })
    }

    /// An order with its payment, on the same terms as `order(_:)`.
    public func orderWithPayment(_ id: OrderID) async throws -> OrderWithPayment {
        try await payments.withPayment(try await order(id))
    }

    /// An order with its payment as read now (admin moves answer with it).
    func withPayment(_ order: Order) async throws -> OrderWithPayment {
        try await payments.withPayment(order)
    }

    /// The caller's order placed with `idempotencyKey` while the key is
    /// kept, if any; `idempotency_key_reused` when it was placed for
    /// another request than `fingerprint` (nil: any request matches).
    public func order(idempotencyKey: String, matching fingerprint: CheckoutFingerprint?) async throws -> Order? {
        let user = try caller.current.user.id
        return try await orders.call { try await $0.order(userID: user, idempotencyKey: idempotencyKey, matching: fingerprint) }
    }

    /// An order the user may see: their own, or any for an admin. Another
    /// user's order is "not found", not "forbidden": its existence is not
    /// the caller's business.
    public func order(_ id: OrderID) async throws -> Order {
        let user = try caller.current.user
        let order = try await orders.call { try await $0.order(id) }
        guard order.userID == user.id || user.isAdmin else {
            throw EntityError.notFound(entity: "order", id: id.description)
        }
        return order
    }

    /// Cancels a pending or confirmed order: its payment is cancelled (or,
    /// paid, owes a refund) and its stock returns (once, keyed by the order
    /// id, so a crash before the restock is repaired at start-up).
    public func cancelOrder(_ id: OrderID) async throws -> OrderWithPayment {
        let user = try caller.current.user.id
        let order = try await order(id)
        return try await payments.cancel(order, by: order.userID == user ? .customer : .admin,
                                         cause: .requested(by: user, owner: order.userID, reason: "cancel_requested"))
    }

    /// Gives or replaces the shipping address of the caller's own order
    /// (any order for an admin) while it has not shipped or been cancelled.
    public func address(_ id: OrderID, to address: ShippingAddress) async throws -> OrderWithPayment {
        let order = try await order(id)
        return try await payments.withPayment(try await orders.call { try await $0.address(order.id, to: address) })
    }

    /// The order's status changes, oldest first, on the same terms as
    /// `order(_:)`: each with its time, its actor and its reason.
    public func history(of id: OrderID) async throws -> [OrderHistoryEntry] {
        let order = try await order(id)
        return try await orders.call { try await $0.history(of: order.id) }
    }

    // The caller's role for the four below is the admin feature's rule
    // (`AdminContext.refusal`): it is the only context that reaches them.

    /// Admins record a payment received outside the provider (see
    /// `CheckoutPayments.recordManualPayment`).
    func recordManualPayment(_ id: OrderID, amount: Int64?, reference: String) async throws -> OrderWithPayment {
        let admin = try caller.current.user.id
        return try await payments.recordManualPayment(try await order(id), amount: amount, reference: reference, by: admin)
    }

    /// Admins record a refund made outside the provider.
    func recordManualRefund(_ id: OrderID, amount: Int64, reference: String) async throws -> OrderWithPayment {
        let admin = try caller.current.user.id
        return try await payments.recordManualRefund(try await order(id), amount: amount, reference: reference, by: admin)
    }

    /// Admins ship a paid order.
    func ship(_ id: OrderID) async throws -> OrderWithPayment {
        let admin = try caller.current.user.id
        return try await payments.ship(try await order(id), by: admin)
    }

    /// The money movements of an order, oldest first.
    func ledger(_ id: OrderID) async throws -> [LedgerEntry] {
        try await payments.ledger(of: try await order(id))
    }

    static func returnKey(_ id: OrderID) -> String { "cancel-\(id)" }

    static func stockLines(of order: Order) -> [StockLine] {
        order.lines.map { StockLine(productID: $0.productID, quantity: $0.quantity) }
    }
}
