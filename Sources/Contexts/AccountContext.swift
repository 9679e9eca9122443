import Axiom
import CartClient
import CatalogClient
import Domain
import FoundationEssentials
import OrderClient
import PaymentClient
import PricingClient
import UserClient

/// The root context of one signed-in session on this server: made by the
/// orchestrator through the session registry on the session's first
/// request, released on logout, idle expiry or eviction. Everything a
/// signed-in user does goes through it, and what needs a role is checked
/// here, not in a handler.
public actor AccountContext: Context {
    public nonisolated let identity: ContextIdentity
    private let users: ClientHandle<UserClient>
    private let catalog: ClientHandle<CatalogClient>
    private let carts: ClientHandle<CartClient>
    private let pricing: ClientHandle<PricingClient>
    private let orders: ClientHandle<OrderClient>
    private let payments: CheckoutPayments
    public private(set) var user: User?
    public private(set) var sessionID: String?
    /// This session's live updates: recorded from the first `liveUpdates`
    /// call until the context is released, so a reconnect can resume.
    private var journal = LiveUpdateJournal(capacity: AccountContext.replayCapacity)
    private var observations: [Task<Void, Never>] = []
    /// Events kept for `Last-Event-ID` resumption.
    public static let replayCapacity = 256

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        users = try creation.client(UserClient.self)
        catalog = try creation.client(CatalogClient.self)
        carts = try creation.client(CartClient.self)
        pricing = try creation.client(PricingClient.self)
        orders = try creation.client(OrderClient.self)
        payments = CheckoutPayments(orders: orders, catalog: catalog, payments: try creation.client(PaymentClient.self))
    }

    public enum Action: Sendable {
        case signIn(Authentication)
        case logout
        case createProduct(ProductDraft)
        case updateProduct(ProductID, ProductPatch)
    }

    public enum Outcome: Sendable {
        case user(User)
        case product(Product)
        case loggedOut
    }

    public func send(_ action: Action) async throws -> Outcome {
        switch action {
        case .signIn(let authentication): .user(signIn(authentication))
        case .logout: try await logout()
        case .createProduct(let draft): .product(try await createProduct(draft))
        case .updateProduct(let id, let patch): .product(try await updateProduct(id, patch))
        }
    }

    /// Records who this request's token belongs to (refreshed on every
    /// request, so a role or status change shows at once).
    @discardableResult
    public func signIn(_ authentication: Authentication) -> User {
        user = authentication.user
        sessionID = authentication.sessionID
        return authentication.user
    }

    /// Revokes this session's token; its live streams end.
    public func logout() async throws -> Outcome {
        guard let sessionID else { throw AuthenticationError.invalidToken }
        _ = try await users.send(.logout(sessionID: sessionID))
        user = nil
        self.sessionID = nil
        endLiveUpdates()
        return .loggedOut
    }

    // MARK: Live updates

    /// The signed-in user's cart and order changes as they happen, made by
    /// any session of theirs (or an admin), after what `lastEventID` saw.
    /// The first call starts observing the cart, order and user clients; the
    /// observation stops when the session ends (logout here, or its token
    /// revoked or expired anywhere) or the context is released.
    public func liveUpdates(after lastEventID: String?) throws -> LiveSubscription {
        let me = try signedInUser()
        guard let sessionID else { throw AuthenticationError.invalidToken }
        if observations.isEmpty { observe(me.id, sessionID: sessionID) }
        return journal.subscribe(after: lastEventID) { [weak self] id in
            Task { await self?.unsubscribe(id) }
        }
    }

    /// Live streams open on this session now.
    public var liveSubscriberCount: Int { journal.subscriberCount }

    public func stopObservation() async {
        endLiveUpdates()
    }

    /// Ends every live stream of this session and stops observing for them.
    private func endLiveUpdates() {
        for task in observations { task.cancel() }
        observations = []
        journal.finishAll()
    }

    private func observe(_ userID: UserID, sessionID: String) {
        // Keyed: this context hears its user's changes and its session's
        // end, not every other user's, so a write costs no more with many
        // streams open.
        let cartUpdates = carts.client.stateBroadcaster.subscribe(key: userID)
        let orderUpdates = orders.client.stateBroadcaster.subscribe(key: userID)
        let userUpdates = users.client.stateBroadcaster.subscribe(key: sessionID)
        let paymentUpdates = payments.updates(of: userID)
        observations = [
            Task { [weak self] in
                for await case .changed(let cart) in cartUpdates where cart.userID == userID {
                    await self?.record(cart)
                }
            },
            Task { [weak self] in
                for await update in orderUpdates {
                    switch update {
                    case .created(let order) where order.userID == userID:
                        await self?.record(.orderCreated(order))
                    case .changed(let order) where order.userID == userID:
                        await self?.recordChange(of: order)
                    default:
                        continue
                    }
                }
            },
            Task { [weak self] in
                // Only a change its order does not follow (a refund, a late
                // success on a cancelled order): the others reach the stream
                // with the order's own change, which comes after the payment's.
                for await case .changed(let payment, let previous) in paymentUpdates
                where payment.userID == userID && payment.status.orderFollows == previous.orderFollows {
                    await self?.record(payment)
                }
            },
            // A token revoked elsewhere (the user suspended) or swept at its
            // expiry must not keep a stream of this user's data open.
            Task { [weak self] in
                for await case .sessionEnded(sessionID) in userUpdates {
                    await self?.sessionEndedElsewhere()
                    return
                }
            },
        ]
    }

    private func sessionEndedElsewhere() {
        user = nil
        sessionID = nil
        endLiveUpdates()
    }

    private func record(_ cart: Cart) async {
        // Priced as GET /cart prices it; a cart that cannot be priced (a
        // currency mismatch would be a bug, storage unavailable for a
        // product not in the catalogue's working set) is skipped rather
        // than sent wrong.
        guard let quote = try? await quote(cart) else { return }
        journal.append(.cartChanged(quote))
    }

    private func record(_ payment: Payment) async {
        // Skipped when the order cannot be read now (storage away), like a
        // cart that cannot be priced.
        guard let order = try? await payments.withPayment(payment) else { return }
        journal.append(.orderChanged(order))
    }

    /// An order change as GET /orders/{id} shows it: with its payment, read
    /// now (a payment moves before its order, so this is the one that moved it).
    private func recordChange(of order: Order) async {
        let payment = try? await payments.withPayment(order)
        journal.append(.orderChanged(payment ?? OrderWithPayment(order: order, payment: nil)))
    }

    private func record(_ update: LiveUpdate) {
        journal.append(update)
    }

    private func unsubscribe(_ id: UInt64) {
        journal.unsubscribe(id)
    }

    public func createProduct(_ draft: ProductDraft) async throws -> Product {
        try requireAdmin()
        return try await catalog.create(draft)
    }

    public func updateProduct(_ id: ProductID, _ patch: ProductPatch) async throws -> Product {
        try requireAdmin()
        return try await catalog.update(id, patch)
    }

    // MARK: Cart (one per user: every session of the user sees the same one)

    /// The cart priced from the catalogue as it is now; lines whose product
    /// is gone or deactivated are listed apart and left out of the total.
    public func cart() async throws -> CartQuote {
        try await quote(try await carts.client.cart(for: try signedInUser().id))
    }

    /// Sets a line's quantity (1…99). The product must exist and be on sale.
    /// Pricing the stored cart cannot fail afterwards: a line total beyond
    /// Int64 once answered 422 yet left the line stored, and every later
    /// GET /cart and checkout failed on it (issue 9). The bounds make it
    /// impossible by construction (unit price ≤ 10^12 minor units, ≤ 100
    /// lines of ≤ 99 units: no total passes 9.9e15; InputBoundsTests prices
    /// that largest cart), so no second pricing pass runs before the write.
    public func setQuantity(_ quantity: Int, of productID: ProductID) async throws -> CartQuote {
        let user = try signedInUser()
        guard let product = try await catalog.client.lookup(productID) else {
            throw DomainError.notFound(entity: "product", id: productID.description)
        }
        guard product.active else { throw DomainError.productInactive(productID) }
        return try await quote(try await carts.send(.setQuantity(user.id, productID, quantity)))
    }

    public func removeLine(_ productID: ProductID) async throws -> CartQuote {
        try await quote(try await carts.send(.remove(try signedInUser().id, productID)))
    }

    public func clearCart() async throws {
        _ = try await carts.send(.clear(try signedInUser().id))
    }

    // MARK: Users (admin; a user may read themselves)

    public func users(limit: Int, cursor: String?) async throws -> Page<User> {
        try requireAdmin()
        return try await users.client.users(limit: limit, after: cursor)
    }

    /// A user record: any for an admin, only your own otherwise (another
    /// user's id is "not found", as for orders).
    public func user(_ id: UserID) async throws -> User {
        let me = try signedInUser()
        guard me.isAdmin || me.id == id else { throw DomainError.notFound(entity: "user", id: id.description) }
        return try await users.client.user(id)
    }

    /// The signed-in user's own name, email or password. A new password
    /// keeps this session and ends every other one of the user.
    public func updateProfile(_ patch: UserProfilePatch, clientAddress: String) async throws -> User {
        let me = try signedInUser()
        guard case .user(let updated) = try await users.send(.updateProfile(me.id, patch, keepingSession: sessionID,
                                                                             clientAddress: clientAddress))
        else { throw UnexpectedOutcome() }
        user = updated
        return updated
    }

    public func updateUser(_ id: UserID, _ patch: UserAdminPatch) async throws -> User {
        try requireAdmin()
        guard case .user(let user) = try await users.send(.adminUpdate(id, patch)) else { throw UnexpectedOutcome() }
        return user
    }

    // MARK: Checkout and orders

    /// Cart → stock → order, all or nothing (seed 004, pattern 4):
    /// 1. price the cart from the catalogue; every line must be on sale;
    /// 2. reserve the stock for a new checkout id (one transaction: all lines or none);
    /// 3. place the order, pending, prices frozen (idempotent by checkout id and key);
    /// 4. make the reservation final, open the order's payment (the order
    ///    stays pending until the provider reports it paid), clear the cart.
    /// A crash between any two steps is repaired at start-up by
    /// `StorefrontContext.reconcileCheckouts()`: a reservation without an
    /// order is released, one with an order is committed and the order's
    /// payment opened, and an order whose cart clear never committed has its
    /// lines taken out of the cart. A retried request with the same
    /// `Idempotency-Key` gets the first order back (`created` false).
    public func checkout(idempotencyKey: String?) async throws -> (order: OrderWithPayment, created: Bool) {
        let user = try signedInUser()
        guard user.canPlaceOrder else { throw DomainError.userSuspended(user.id) }
        if let key = idempotencyKey, let existing = try await orders.client.order(userID: user.id, idempotencyKey: key) {
            return (try await payments.withPayment(existing), false)
        }
        let cart = try await carts.client.cart(for: user.id)
        guard !cart.isEmpty else { throw DomainError.emptyCart }
        let quote = try await quote(cart)
        if let missing = quote.unavailable.first {
            throw missing.reason == .inactive ? DomainError.productInactive(missing.productID)
                                              : DomainError.notFound(entity: "product", id: missing.productID.description)
        }
        let checkoutID = CheckoutID(UUID())
        _ = try await catalog.reserve(checkoutID: checkoutID,
                                      lines: quote.lines.map { StockLine(productID: $0.productID, quantity: $0.quantity) })
        let placed: Order
        do {
            placed = try await orders.send(.place(checkoutID: checkoutID, userID: user.id, cart: quote.priced,
                                                  idempotencyKey: idempotencyKey))
        } catch {
            _ = try? await catalog.releaseReservation(checkoutID)
            if let key = idempotencyKey, let existing = try await orders.client.order(userID: user.id, idempotencyKey: key) {
                return (try await payments.withPayment(existing), false)
            }
            throw error
        }
        guard placed.checkoutID == checkoutID else {
            // The same checkout was placed before (a retried key raced this one).
            _ = try? await catalog.releaseReservation(checkoutID)
            return (try await payments.withPayment(placed), false)
        }
        _ = try await catalog.commitReservation(checkoutID)
        let payment = try await payments.openPayment(for: placed)
        // Recorded with the checkout id, so reconciliation can repeat it
        // safely. Only the ordered lines go: another session of this user
        // may have changed the cart while this checkout ran, and that
        // acknowledged change is not the order's to clear.
        _ = try await carts.send(.clearAfterCheckout(user.id, checkoutID, ordered: Self.cartLines(of: placed)))
        // Its own (group-committed) write: until it lands, start-up
        // reconciliation finds the order through the open-orders index.
        _ = try await orders.send(.settle(placed.id))
        return (OrderWithPayment(order: placed, payment: payment), true)
    }

    public func myOrders(limit: Int, cursor: String?) async throws -> Page<OrderWithPayment> {
        try await payments.withPayments(try await orders.client.orders(for: try signedInUser().id, limit: limit, after: cursor))
    }

    /// An order with its payment, on the same terms as `order(_:)`.
    public func orderWithPayment(_ id: OrderID) async throws -> OrderWithPayment {
        try await payments.withPayment(try await order(id))
    }

    /// An order the user may see: their own, or any for an admin. Another
    /// user's order is "not found", not "forbidden": its existence is not
    /// the caller's business.
    public func order(_ id: OrderID) async throws -> Order {
        let user = try signedInUser()
        let order = try await orders.client.order(id)
        guard order.userID == user.id || user.isAdmin else {
            throw DomainError.notFound(entity: "order", id: id.description)
        }
        return order
    }

    /// Cancels a pending or confirmed order: its payment is cancelled (or,
    /// paid, owes a refund) and its stock returns (once, keyed by the order
    /// id, so a crash before the restock is repaired at start-up).
    public func cancelOrder(_ id: OrderID) async throws -> OrderWithPayment {
        let user = try signedInUser()
        let order = try await order(id)
        return try await payments.cancel(order, by: order.userID == user.id ? .customer : .admin)
    }

    /// Admins move orders confirmed → shipped → delivered (409 otherwise).
    public func moveOrder(_ id: OrderID, to status: OrderStatus) async throws -> OrderWithPayment {
        try requireAdmin()
        if status == .cancelled { return try await cancelOrder(id) }
        return try await payments.withPayment(try await orders.send(.transition(id, to: status, by: .admin)))
    }

    /// Admins record a payment received outside the provider: the payment
    /// `succeeded` (`manual`), the order confirmed.
    public func recordManualPayment(_ id: OrderID, reference: String) async throws -> OrderWithPayment {
        try requireAdmin()
        return try await payments.recordManual(try await order(id), reference: reference)
    }

    static func returnKey(_ id: OrderID) -> String { "cancel-\(id)" }

    static func stockLines(of order: Order) -> [StockLine] {
        order.lines.map { StockLine(productID: $0.productID, quantity: $0.quantity) }
    }

    /// The cart lines an order was placed from.
    static func cartLines(of order: Order) -> [CartLine] {
        order.lines.map { CartLine(productID: $0.productID, quantity: $0.quantity) }
    }

    private func quote(_ cart: Cart) async throws -> CartQuote {
        let products = try await catalog.client.lookup(cart.lines.map(\.productID))
        return try pricing.client.price(cart: cart, products: products, currency: catalog.client.currency)
    }

    /// Refuses unless the signed-in user is an admin (introspection and
    /// other operator-only reads that involve no domain action).
    public func requireAdministrator() throws {
        try requireAdmin()
    }

    private func signedInUser() throws -> User {
        guard let user else { throw AuthenticationError.invalidToken }
        return user
    }

    private func requireAdmin() throws {
        guard let user else { throw AuthenticationError.invalidToken }
        guard user.isAdmin else { throw AccessDenied.adminOnly }
    }
}
