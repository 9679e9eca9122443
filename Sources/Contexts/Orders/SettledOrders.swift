import Axiom
import Domain
import OrderClient

/// An order as the work that tells of it reads it (its mails, its webhook
/// events): once its checkout or cancellation has finished, and not at
/// all when its checkout took it back.
struct SettledOrders: Sendable {
    let orders: ClientHandle<OrderClient>

    /// The order once it has settled; until then `job` waits
    /// (`OrderStillOpen`). Nil for an order whose checkout was rolled back:
    /// nobody is told of it.
    func read(_ id: OrderID, for job: Job) async throws -> Order? {
        if try await orders.call({ try await $0.isOpen(id) }) { throw OrderStillOpen(order: id, enqueuedAt: job.createdAt) }
        let order = try await orders.call { try await $0.order(id) }
        return try await rolledBack(order) ? nil : order
    }

    /// A checkout that took the order back: cancelled by the system because
    /// its stock was sold meanwhile, before anyone was told it was placed.
    /// Only a cancelled order's history is read.
    private func rolledBack(_ order: Order) async throws -> Bool {
        guard order.status == .cancelled else { return false }
        return try await orders.call { try await $0.history(of: order.id) }.contains {
            $0.status == .cancelled && $0.cause.actor == .system && $0.cause.reason == "stock_sold_out"
        }
    }
}
