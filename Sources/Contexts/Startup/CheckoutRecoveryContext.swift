import Axiom
import CartClient
import CatalogClient
import Domain
import OrderClient
import PaymentClient

/// The start-up repair of checkouts a crash interrupted. One instance for
/// the whole process, made by the orchestrator at start-up, before any
/// request is served; it touches the catalogue, orders, carts and payments
/// the way `CheckoutContext` and `CheckoutPayments` would have, each step
/// idempotent, so a repair interrupted in turn is finished by the next start.
public final class CheckoutRecoveryContext: Context {
    public let identity: ContextIdentity
    private let catalog: ClientHandle<CatalogClient>
    private let orders: ClientHandle<OrderClient>
    private let carts: ClientHandle<CartClient>
    private let payments: CheckoutPayments

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        catalog = try creation.client(CatalogClient.self)
        orders = try creation.client(OrderClient.self)
        carts = try creation.client(CartClient.self)
        payments = try CheckoutPayments(creation)
    }

    /// Start-up repair of checkouts a crash interrupted (see
    /// `CheckoutContext.checkout`): a reservation whose order exists is
    /// committed, one without is released. Then every open order (placed or
    /// cancelled, its work in the other clients not known finished; read
    /// through a partial index, so this costs what a crash left unfinished,
    /// not the shop's history) is finished: a pending one holds final stock
    /// now and gets its payment (if the crash came before it was opened);
    /// one whose checkout did not get to clear its cart
    /// has its ordered lines taken out of the cart, once per checkout; a
    /// cancelled one has its stock returned (once per order); then it is
    /// settled. Last, every payment whose change did not reach its order and
    /// stock is finished (`CheckoutPayments.reconcileOpenPayments`). Returns
    /// what it did.
    public func reconcileCheckouts() async throws
        -> (committed: Int, released: Int, paymentsOpened: Int, cartsCleared: Int, paymentsSettled: Int) {
        var committed = 0, released = 0, paymentsOpened = 0, cartsCleared = 0
        for checkoutID in try await catalog.client.pendingReservations() {
            if try await orders.client.order(forCheckout: checkoutID) != nil {
                _ = try await catalog.send(.commitReservation(checkoutID))
                committed += 1
            } else {
                _ = try await catalog.send(.releaseReservation(checkoutID))
                released += 1
            }
        }
        // Not only the orders confirmed just now: a crash after a checkout
        // confirmed its order but before its cart was cleared leaves a
        // confirmed order and a full cart, which only the clear record tells
        // apart. What the user changed in the cart after the checkout read it
        // (from another session, before the crash) stays. In batches, each
        // batch's orders at once: every finished order is settled, so the
        // next batch is the next open ones, memory stays bounded, and the
        // writes share group commits (the first start after migration 401
        // finishes every older order once).
        while true {
            let batch = try await orders.client.openOrders(limit: Self.reconciliationBatch)
            if batch.isEmpty { break }
            let uncleared = Set(try await carts.client.unclearedCheckouts(among: batch.compactMap(\.checkoutID)))
            try await withThrowingTaskGroup(of: (paymentOpened: Bool, cartCleared: Bool).self) { group in
                for order in batch {
                    let clear = order.checkoutID.map(uncleared.contains) ?? false
                    group.addTask { try await self.finish(order, clearingCart: clear) }
                }
                for try await done in group {
                    if done.paymentOpened { paymentsOpened += 1 }
                    if done.cartCleared { cartsCleared += 1 }
                }
            }
        }
        let paymentsSettled = try await payments.reconcileOpenPayments()
        return (committed, released, paymentsOpened, cartsCleared, paymentsSettled)
    }

    /// Open orders finished at once by start-up reconciliation.
    static let reconciliationBatch = 256

    /// Finishes one open order (see `reconcileCheckouts`) and settles it.
    private func finish(_ order: Order, clearingCart: Bool) async throws -> (paymentOpened: Bool, cartCleared: Bool) {
        // A pending order waits for its payment (opened here if the kill
        // came before the checkout opened it; the existing one otherwise).
        // Counted only when opened here: a kill right after checkouts
        // answered leaves them open until their queued settle, with their
        // payments long opened.
        let paymentOpened = order.status == .pending ? try await payments.payment(openingIfMissing: order).opened : false
        if clearingCart, let checkoutID = order.checkoutID {
            _ = try await carts.send(.clearAfterCheckout(order.userID, checkoutID,
                                                         ordered: CheckoutContext.cartLines(of: order)))
        }
        if order.status == .cancelled {
            _ = try await catalog.send(.returnStock(key: OrdersContext.returnKey(order.id),
                                                    lines: OrdersContext.stockLines(of: order)))
        }
        _ = try await orders.send(.settle(order))
        return (paymentOpened, clearingCart && order.checkoutID != nil)
    }
}
