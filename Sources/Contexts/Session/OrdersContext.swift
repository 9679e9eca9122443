import Axiom
import CatalogClient
import Domain
import OrderClient

/// A session's orders feature: the customer's order reads and cancel
/// (`GET /orders`, `GET /orders/{id}`, `POST /orders/{id}/cancel`); also
/// downstream of checkout and admin, which reach orders through it.
/// Stateless, hence `nonisolated` (see `CartContext`).
public actor OrdersContext: Context {
    public nonisolated let identity: ContextIdentity
    private nonisolated let catalog: ClientHandle<CatalogClient>
    private nonisolated let orders: ClientHandle<OrderClient>

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        catalog = try creation.client(CatalogClient.self)
        orders = try creation.client(OrderClient.self)
    }

    public nonisolated func orders(of caller: Authentication, limit: Int, cursor: String?) async throws -> Page<Order> {
        try await orders.client.orders(for: caller.user.id, limit: limit, after: cursor)
    }

    /// The caller's order placed with `idempotencyKey`, if any.
    public nonisolated func order(placedBy caller: Authentication, idempotencyKey: String) async throws -> Order? {
        try await orders.client.order(userID: caller.user.id, idempotencyKey: idempotencyKey)
    }

    /// An order the user may see: their own, or any for an admin. Another
    /// user's order is "not found", not "forbidden": its existence is not
    /// the caller's business.
    public nonisolated func order(_ id: OrderID, for caller: Authentication) async throws -> Order {
        let user = caller.user
        let order = try await orders.client.order(id)
        guard order.userID == user.id || user.isAdmin else {
            throw DomainError.notFound(entity: "order", id: id.description)
        }
        return order
    }

    /// Cancels a pending or confirmed order and returns its stock (once,
    /// keyed by the order id, so a crash before the restock is repaired at
    /// start-up).
    public nonisolated func cancelOrder(_ id: OrderID, for caller: Authentication) async throws -> Order {
        let user = caller.user
        let order = try await order(id, for: caller)
        let actor: OrderActor = order.userID == user.id ? .customer : .admin
        let cancelled = try await orders.send(.transition(id, to: .cancelled, by: actor))
        _ = try await catalog.send(.returnStock(key: Self.returnKey(id), lines: Self.stockLines(of: cancelled)))
        _ = try await orders.send(.settle(id))
        return cancelled
    }

    static func returnKey(_ id: OrderID) -> String { "cancel-\(id)" }

    static func stockLines(of order: Order) -> [StockLine] {
        order.lines.map { StockLine(productID: $0.productID, quantity: $0.quantity) }
    }
}
