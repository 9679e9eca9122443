import Axiom
import CartClient
import CatalogClient
import Domain
import FoundationEssentials
import OrderClient
import PaymentClient

/// A session's checkout (`POST /checkout`): cart → stock → order across the
/// cart, catalogue and order clients (seed 004, pattern 4). Its downstream
/// contexts are the session's cart (which prices the cart) and orders
/// (which finds an order already placed with the same key); when the
/// session made them first, they are shared, not made again.
/// It holds no state (see `CartContext`).
public final class CheckoutContext: SessionFeature {
    public static var downstreamTypes: [any Context.Type] { [CartContext.self, OrdersContext.self] }

    public let identity: ContextIdentity
    public let caller: SessionCaller
    private let clients: CheckoutClients
    private let rules: CheckoutRules

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        caller = try SessionCaller.of(creation)
        clients = try CheckoutClients(creation)
        rules = creation.composition(CheckoutRules.self) ?? CheckoutRules()
    }

    /// Cart → stock → order, all or nothing (seed 004, pattern 4):
    /// 1. price the cart from the catalogue; every line must be on sale;
    /// 2. reserve the stock for a new checkout id (one transaction: all lines or none);
    /// 3. place the order, pending, prices frozen (idempotent by checkout id and key);
    /// 4. make the reservation final, open the order's payment (the order
    ///    stays pending until the provider reports it paid), clear the cart:
    ///    three writes of three clients, independent of one another, so
    ///    they go at once and share a group commit;
    /// 5. once all three have committed, queue the order's settle (it
    ///    closes the order to reconciliation; the answer does not wait).
    /// The reservation and the order carry this process's lease. A crash
    /// between any two steps is repaired by `CheckoutRecoveryContext` (at
    /// this process's next start, or by any process's sweep once the lease
    /// ran out): a reservation without an order is released, one with an
    /// order is committed and the order's payment opened, and an order whose
    /// cart clear never committed has its lines taken out of the cart. A
    /// checkout that outlived its lease finds its reservation released by
    /// then: the commit takes the stock again, or the order is cancelled and
    /// the product's refusal answered. A retried request with the same
    /// `Idempotency-Key` gets the first order back (`created` false): found
    /// before anything else when the first request emptied the cart, else
    /// by placement, whose unique key joins the retry to the first order, or
    /// after a refusal before it (the first order may hold the last stock).
    /// `paymentMethod`: the provider, or a manual method (a bank transfer)
    /// whose payment waits days for an admin to record it. `shippingAddress`
    /// (validated by the caller) goes with the order; without one the order
    /// can be paid but not shipped until one is given.
    public func checkout(idempotencyKey: String?, paymentMethod: PaymentMethod = .provider,
                         shippingAddress: ShippingAddress? = nil) async throws -> (order: OrderWithPayment, created: Bool) {
        let user = try caller.current.user
        guard user.canPlaceOrder else { throw UserError.userSuspended(user.id) }
        if rules.requireVerifiedEmail, !user.emailVerified { throw UserError.emailNotVerified(user.id) }
        let cart = try await clients.carts.call { try await $0.cart(for: user.id) }
        // A retry after the first request went through finds the cart
        // emptied of what it ordered: an empty cart matches the key's order.
        guard !cart.isEmpty else {
            if let order = try await retried(key: idempotencyKey, matching: nil, method: paymentMethod) {
                return (order, false)
            }
            throw CartError.emptyCart
        }
        // A cart that is not what the key's order was placed from is
        // refused, by placement or by the look-up after a refusal.
        let fingerprint = CheckoutFingerprint(lines: cart.lines)
        let checkoutID = CheckoutID(TimeOrderedUUID.make())
        let quote: CartQuote
        do {
            quote = try await downstream(CartContext.self).quote(cart)
            if let missing = quote.unavailable.first {
                throw missing.reason == .inactive ? CatalogError.productInactive(missing.productID)
                                                  : EntityError.notFound(entity: "product", id: missing.productID.description)
            }
            _ = try await clients.catalog.call { try await $0.reserve(checkoutID,
                                                quote.lines.map { StockLine(productID: $0.productID, quantity: $0.quantity) }) }
        } catch {
            if let order = try await retried(key: idempotencyKey, matching: fingerprint, method: paymentMethod) {
                return (order, false)
            }
            throw error
        }
        let placed: Order
        do {
            placed = try await clients.orders.call { try await $0.place(checkoutID: checkoutID, userID: user.id, cart: quote.priced,
                                                  idempotencyKey: idempotencyKey, fingerprint: fingerprint,
                                                  shippingAddress: shippingAddress) }
        } catch {
            _ = try? await clients.catalog.call { try await $0.releaseReservation(checkoutID) }
            if let order = try await retried(key: idempotencyKey, matching: fingerprint, method: paymentMethod) {
                return (order, false)
            }
            throw error
        }
        guard placed.checkoutID == checkoutID else {
            // The same checkout was placed before (a retried key raced this one).
            _ = try? await clients.catalog.call { try await $0.releaseReservation(checkoutID) }
            return (try await replayed(placed, method: paymentMethod), false)
        }
        // Step 4 at once: each durable write waits for a group commit, and
        // these three run together instead of waiting for three commits in a
        // row. None of the three reads
        // another's result, and reconciliation repairs each of them on its
        // own (see above), so any subset committed before a crash is
        // finished at start-up.
        async let refused = clients.stock.commit(placed)
        async let opened = clients.payments.openPayment(for: placed, method: paymentMethod)
        // Recorded with the checkout id, so reconciliation can repeat it
        // safely. Only the ordered lines go: another session of this user
        // may have changed the cart while this checkout ran, and that
        // acknowledged change is not the order's to clear.
        async let cleared = clients.carts.call { try await $0.clearAfterCheckout(user.id, checkoutID, ordered: Self.cartLines(of: placed)) }
        if let refusal = try await refused {
            // The stock was sold after recovery released this checkout's
            // expired lease: the order goes (nothing to return, its stock
            // was released).
            _ = try? await opened
            _ = try? await cleared
            _ = try await clients.payments.cancel(placed, by: .system,
                                           cause: OrderChangeCause(.system, reason: "stock_sold_out"))
            throw refusal
        }
        let payment = try await opened
        _ = try await cleared
        // Only after all three: until it lands, start-up reconciliation
        // finds the order through the open-orders index. Queued, not
        // awaited: everything this answer reports is durable already, and
        // the settles of concurrent checkouts share one statement.
        _ = try await clients.orders.call { try await $0.settleSoon(placed) }
        return (OrderWithPayment(order: placed, payment: payment), true)
    }

    /// The order `key` placed before, if any, answered as `replayed`.
    private func retried(key: String?, matching fingerprint: CheckoutFingerprint?,
                         method: PaymentMethod) async throws -> OrderWithPayment? {
        guard let key,
              let existing = try await downstream(OrdersContext.self)
                  .order(idempotencyKey: key, matching: fingerprint) else { return nil }
        return try await replayed(existing, method: method)
    }

    /// The order a retried key placed, as its first request would have
    /// answered: with its payment, and its lines out of the cart. The first
    /// request may have died between placing the order and clearing the
    /// cart; recovery would clear it later, by then taking out lines the
    /// user put back after seeing this answer. Cleared here, once per
    /// checkout, recovery finds nothing left to clear.
    private func replayed(_ order: Order, method: PaymentMethod) async throws -> OrderWithPayment {
        if let checkoutID = order.checkoutID,
           try await !clients.carts.call({ try await $0.unclearedCheckouts(among: [checkoutID]) }).isEmpty {
            _ = try await clients.carts.call { try await $0.clearAfterCheckout(order.userID, checkoutID, ordered: Self.cartLines(of: order)) }
        }
        return try await clients.payments.joined(order, method: method)
    }

    /// The cart lines an order was placed from.
    static func cartLines(of order: Order) -> [CartLine] {
        order.lines.map { CartLine(productID: $0.productID, quantity: $0.quantity) }
    }
}
