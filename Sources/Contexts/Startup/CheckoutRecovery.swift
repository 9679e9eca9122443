import Axiom
import CartClient
import CatalogClient
import Domain
import OrderClient
import PaymentClient

/// The repair of interrupted checkouts (see `CheckoutRecoveryContext`),
/// over the clients a checkout touches: run at start-up by the context and
/// every few seconds by the periodic job (`CheckoutRecoveryWork`).
struct CheckoutRecovery: Sendable {
    let clients: CheckoutClients

    init(_ creation: ContextCreation) throws {
        clients = try CheckoutClients(creation)
    }

    /// Reservations first (each one committed if its order exists, released
    /// otherwise), then open orders (placed or cancelled, their work in the
    /// other clients not known finished; read through partial indexes, so
    /// this costs what is unfinished, not the shop's history): a pending
    /// one holds its stock for good and gets its payment (if the crash came
    /// before it was opened); one whose checkout did not get to clear its
    /// cart has its ordered lines taken out of the cart, once per checkout;
    /// a cancelled one has its stock returned (once per order); then it is
    /// settled. In batches, each batch's items at once, so their writes
    /// share group commits and memory stays bounded.
    func recover(_ scope: CheckoutRecoveryContext.Scope) async throws -> CheckoutRecoveryContext.Repair {
        var repair = CheckoutRecoveryContext.Repair()
        var seen = Set<CheckoutID>()
        while true {
            let listed = scope == .everything
                ? try await clients.catalog.call { try await $0.pendingReservations() }
                : try await clients.catalog.call { try await $0.expiredReservations(includingOwn: scope == .ownOrExpired, limit: Self.batch) }
            let batch = listed.filter { !seen.contains($0) }
            if batch.isEmpty { break }
            seen.formUnion(batch)
            await withTaskGroup(of: Result<Outcome, any Error>.self) { group in
                for checkoutID in batch {
                    group.addTask { await Self.result { try await self.resolve(checkoutID) } }
                }
                for await result in group { repair.count(result) }
            }
        }
        var last: Order?
        while true {
            let batch = try await clients.orders.call { try await $0.openOrders(
                limit: Self.batch, olderThanSeconds: scope == .everything ? 0 : clients.catalog.call { $0.lease.seconds },
                includingOwn: scope == .ownOrExpired, after: last) }
            guard let final = batch.last else { break }
            last = final
            // Not only the orders confirmed just now: a crash after a
            // checkout confirmed its order but before its cart was cleared
            // leaves a confirmed order and a full cart, which only the clear
            // record tells apart. What the user changed in the cart after the
            // checkout read it (from another session, before the crash) stays.
            let uncleared = Set(try await clients.carts.call { try await $0.unclearedCheckouts(among: batch.compactMap(\.checkoutID)) })
            await withTaskGroup(of: Result<Outcome, any Error>.self) { group in
                for order in batch {
                    let clear = order.checkoutID.map(uncleared.contains) ?? false
                    group.addTask { await Self.result { try await self.finish(order, clearingCart: clear) } }
                }
                for await result in group { repair.count(result) }
            }
        }
        return repair
    }

    /// Checkouts or orders finished at once.
    static let batch = 256

    /// What finishing one reservation or order did.
    struct Outcome: Sendable {
        var committed = false, released = false, refused = false, paymentOpened = false, cartCleared = false
        var settled = false
    }

    /// A reservation whose lease ran out: committed if its order exists (the
    /// order is finished with the open orders), released otherwise. A
    /// placement racing the release finds it released when it commits, and
    /// takes the stock again or is refused (`CheckoutStock`).
    private func resolve(_ checkoutID: CheckoutID) async throws -> Outcome {
        guard let order = try await clients.orders.call({ try await $0.order(forCheckout: checkoutID) }) else {
            _ = try await clients.catalog.call { try await $0.releaseReservation(checkoutID) }
            return Outcome(released: true)
        }
        if try await clients.stock.commit(order) != nil {
            try await refuse(order)
            return Outcome(refused: true)
        }
        return Outcome(committed: true)
    }

    /// Finishes one open order (see `recover`) and settles it.
    private func finish(_ order: Order, clearingCart: Bool) async throws -> Outcome {
        var outcome = Outcome()
        if order.status == .pending {
            // Its stock first: a payment opens only for an order that holds it.
            if try await clients.stock.commit(order) != nil {
                try await refuse(order)
                return Outcome(refused: true)
            }
            // As stored now: a cancel may have landed since the batch was read.
            let current = try await clients.orders.call { try await $0.order(order.id) }
            if current.status == .pending {
                outcome.paymentOpened = try await clients.payments.payment(openingIfMissing: current).opened
            }
        }
        if clearingCart, let checkoutID = order.checkoutID {
            _ = try await clients.carts.call { try await $0.clearAfterCheckout(order.userID, checkoutID,
                                                         ordered: CheckoutContext.cartLines(of: order)) }
            outcome.cartCleared = true
        }
        if order.status == .cancelled {
            _ = try await clients.catalog.call { try await $0.returnStock(key: OrdersContext.returnKey(order.id),
                                                    lines: OrdersContext.stockLines(of: order), checkout: order.checkoutID) }
        }
        _ = try await clients.orders.call { try await $0.settle(order) }
        outcome.settled = true
        return outcome
    }

    private static func result(_ work: () async throws -> Outcome) async -> Result<Outcome, any Error> {
        do { return .success(try await work()) } catch { return .failure(error) }
    }

    /// An order whose stock could not be taken again is cancelled (its
    /// reservation was released, so nothing comes back).
    private func refuse(_ order: Order) async throws {
        do {
            _ = try await clients.payments.cancel(order, by: .system,
                                           cause: OrderChangeCause(.system, reason: "stock_sold_out"))
        } catch OrderError.illegalTransition {
            // Cancelled (or moved) meanwhile by someone else.
        }
    }
}

extension CheckoutRecoveryContext.Repair {
    fileprivate mutating func count(_ result: Result<CheckoutRecovery.Outcome, any Error>) {
        switch result {
        case .success(let done):
            if done.committed { committed += 1 }
            if done.released { released += 1 }
            if done.refused { refused += 1 }
            if done.paymentOpened { paymentsOpened += 1 }
            if done.cartCleared { cartsCleared += 1 }
            if done.settled { settled += 1 }
        case .failure(let error):
            fail(error)
        }
    }
}
