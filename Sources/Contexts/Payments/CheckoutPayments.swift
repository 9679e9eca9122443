import Axiom
import CatalogClient
import Domain
import OrderClient
import PaymentClient

/// The cross-domain payment steps of checkout and orders (seed 004:
/// checkout takes payment): a payment opened for a placed order, an order
/// cancelled with its payment and stock, a manual payment recorded, and the
/// order and stock brought in line with a payment that changed.
///
/// The payment, the order and the stock live in three clients and three
/// transactions, so the payment decides and the rest follows: every change
/// goes to the payment first (the payments client serializes a cancel, an
/// expiry and a provider event on one payment, and marks the payment open),
/// then `converge` moves the order, returns the stock (once, keyed by the
/// order id) and settles both. Each step is idempotent, so start-up
/// reconciliation repeats `converge` for every payment still open and a
/// kill between any two steps is repaired.
struct CheckoutPayments: Sendable {
    let orders: ClientHandle<OrderClient>
    let catalog: ClientHandle<CatalogClient>
    let payments: ClientHandle<PaymentClient>

    /// The three handles from the orchestrator, for the context being made.
    init(_ creation: ContextCreation) throws {
        orders = try creation.client(OrderClient.self)
        catalog = try creation.client(CatalogClient.self)
        payments = try creation.client(PaymentClient.self)
    }

    /// The placed order's payment (the existing one when retried), by
    /// the method the customer chose.
    func openPayment(for order: Order, method: PaymentMethod = .provider) async throws -> Payment {
        try await payments.call { try await $0.open(order, method: method) }
    }

    /// `order`'s payment, opened now if it has none; `opened` says which
    /// (start-up reconciliation counts only the payments it opened).
    func payment(openingIfMissing order: Order,
                 method: PaymentMethod = .provider) async throws -> (payment: Payment, opened: Bool) {
        if let payment = try await payments.call({ try await $0.payment(forOrder: order.id) }) { return (payment, false) }
        return (try await openPayment(for: order, method: method), true)
    }

    /// A checkout that found its order placed by another request (the same
    /// `Idempotency-Key` retried, or sent to several replicas at once): the
    /// order with its payment. The placing request may not have opened the
    /// payment yet (it runs on another replica, a step behind); opening it
    /// is the same idempotent step, so every answer names the payment.
    func joined(_ order: Order, method: PaymentMethod) async throws -> OrderWithPayment {
        // Only a pending order gets one now: an order from before payments
        // existed has none, and gets none.
        guard order.status == .pending else { return try await withPayment(order) }
        return OrderWithPayment(order: order, payment: try await payment(openingIfMissing: order, method: method).payment)
    }

    /// The order with its payment, as read now.
    func withPayment(_ order: Order) async throws -> OrderWithPayment {
        OrderWithPayment(order: order, payment: try await payments.call { try await $0.payment(forOrder: order.id) })
    }

    /// The payment's order with the payment as it changed (a live update).
    func withPayment(_ payment: Payment) async throws -> OrderWithPayment {
        OrderWithPayment(order: try await orders.call { try await $0.order(payment.orderID) }, payment: payment)
    }

    /// The order's money movements, oldest first.
    func ledger(of order: Order) async throws -> [LedgerEntry] {
        try await payments.call { try await $0.ledger(ofOrder: order.id) }
    }

    /// A user's payment changes as they commit.
    func updates(of userID: UserID) -> AsyncStream<PaymentUpdate> {
        payments.updates.subscribe(key: userID)
    }

    /// A page of orders, each with its payment.
    func withPayments(_ page: Page<Order>) async throws -> Page<OrderWithPayment> {
        let found = try await payments.call { try await $0.payments(forOrders: page.items.map(\.id)) }
        return Page(items: page.items.map { OrderWithPayment(order: $0, payment: found[$0.id]) },
                    nextCursor: page.nextCursor)
    }

    /// Cancels an order for a customer or an admin: a waiting payment is
    /// cancelled, a paid one owes a refund (`refund_pending`), the stock
    /// comes back. An order that can no longer be cancelled is refused
    /// before its payment is touched, and so is one whose shipping its
    /// payment already allowed (`order_shipped`): the payment decides
    /// between a cancel and a ship. An order whose payment is not open yet
    /// gets a cancelled one, so a success that follows is owed back.
    func cancel(_ order: Order, by actor: OrderActor, cause: OrderChangeCause) async throws -> OrderWithPayment {
        guard order.isCancellable else { throw OrderError.illegalTransition(from: order.status, to: .cancelled) }
        return try await converge(try await payments.call { try await $0.orderCancelled(order) }, cancelledBy: actor, cause: cause)
    }

    /// Ships a confirmed order: its payment must be paid, checked and
    /// marked under the payment's lock before the order moves, so a cancel
    /// racing it is refused or makes this refuse, never both succeed. An
    /// order without a shipping address is refused before its payment is
    /// marked (an address is never taken away, so this check holds).
    func ship(_ order: Order, by admin: UserID) async throws -> OrderWithPayment {
        guard order.status.canTransition(to: .shipped, by: .admin) else {
            throw OrderError.illegalTransition(from: order.status, to: .shipped)
        }
        guard order.shippingAddress != nil else { throw OrderError.shippingAddressRequired(order.id) }
        let payment = try await payments.call { try await $0.fulfil(order.id) }
        let shipped = try await orders.call { try await $0.transition(order.id, to: .shipped, by: .admin,
                                                        cause: OrderChangeCause(.admin(admin), reason: "shipped")) }
        guard let payment else { return OrderWithPayment(order: shipped, payment: nil) }
        return OrderWithPayment(order: shipped, payment: try await payments.call { try await $0.settle(payment.id, payment.status) })
    }

    /// An admin's record of money received outside the provider (`amount`:
    /// when nil, what a waiting payment still lacks, else the payment's):
    /// a ledger entry by that admin; a waiting payment `succeeded` once the
    /// payments cover it, its order confirmed; a paid one overpaid, the
    /// excess owed back; a cancelled order's owed back whole.
    func recordManualPayment(_ order: Order, amount: Int64?, reference: String,
                             by admin: UserID) async throws -> OrderWithPayment {
        try await record(order, reference: reference, by: admin, reason: "manual_payment") { payment in
            let rest = payment.amountDue > 0 ? payment.amountDue : payment.amount.amount
            return MoneyMovement(kind: .manualPayment, amount: Money(amount: amount ?? rest,
                                                                     currency: payment.amount.currency),
                          method: payment.method == .bankTransfer ? .bankTransfer : .manual,
                          reference: reference, eventID: nil, actor: .admin(admin))
        }
    }

    /// An admin's record of money given back outside the provider: at
    /// most what was paid and not yet refunded (`refund_exceeds_paid`),
    /// decided under the payment's lock, so concurrent refunds cannot
    /// together exceed it.
    func recordManualRefund(_ order: Order, amount: Int64, reference: String,
                            by admin: UserID) async throws -> OrderWithPayment {
        try await record(order, reference: reference, by: admin, reason: "manual_refund") { payment in
            MoneyMovement(kind: .manualRefund, amount: Money(amount: amount, currency: payment.amount.currency),
                          method: payment.method == .bankTransfer ? .bankTransfer : .manual,
                          reference: reference, eventID: nil, actor: .admin(admin))
        }
    }

    private func record(_ order: Order, reference: String, by admin: UserID, reason: String,
                        _ movement: (Payment) -> MoneyMovement) async throws -> OrderWithPayment {
        guard let current = try await payments.call({ try await $0.payment(forOrder: order.id) }),
              let payment = try await payments.call({ try await $0.record(movement(current), on: order.id) }) else {
            throw EntityError.notFound(entity: "payment", id: order.id.description)
        }
        return try await converge(payment, cause: OrderChangeCause(.admin(admin), reason: reason))
    }

    /// Moves the order to what its payment implies (paid → confirmed; gone
    /// → cancelled, stock returned) and settles both. Reads the order as it
    /// is now; a transition another request made meanwhile is re-read, not
    /// fought. `cancelledBy` is who asked, for a paid order being cancelled
    /// (the order table lets only a customer or an admin cancel a confirmed
    /// order; reconciliation finishes such a cancel as an admin). `cause`
    /// is what the order's history records for a move made here.
    @discardableResult
    func converge(_ changed: Payment, cancelledBy actor: OrderActor = .admin,
                  cause: OrderChangeCause) async throws -> OrderWithPayment {
        // As stored now: a cancel, an expiry or an event may have moved it
        // since `changed` was read, and the newest status is the one to follow.
        let payment = try await payments.call { try await $0.payment(changed.id) }
        let target = payment.status.orderFollows
        var order = try await orders.call { try await $0.order(payment.orderID) }
        for _ in 0..<Self.maxAttempts {
            guard order.status != target, let by = Self.mover(from: order.status, to: target, asking: actor) else { break }
            do {
                order = try await orders.call { try await $0.transition(order.id, to: target, by: by, cause: cause) }
            } catch OrderError.illegalTransition {
                order = try await orders.call { try await $0.order(payment.orderID) }
            }
        }
        if order.status == .cancelled { try await returnStock(of: order) }
        let settled = try await payments.call { try await $0.settle(payment.id, payment.status) }
        return OrderWithPayment(order: order, payment: settled)
    }

    /// Who may make the order's move: the system (paid → confirm, expired →
    /// cancel a pending order), else whoever asked; nil when nobody may (a
    /// shipped order is not cancelled by its payment).
    private static func mover(from status: OrderStatus, to target: OrderStatus, asking actor: OrderActor) -> OrderActor? {
        if status.canTransition(to: target, by: .system) { return .system }
        return status.canTransition(to: target, by: actor) ? actor : nil
    }

    /// Repair: every payment whose change may not have reached its order
    /// and stock (read through the partial index of open payments, so this
    /// costs what a kill left unfinished) is converged and settled, in
    /// batches, once it has been open `quietSeconds`: the request that
    /// changed a younger one is most likely still moving its order, and the
    /// order's history should name that request's cause, not a repair.
    /// Returns how many.
    func reconcileOpenPayments(quietSeconds: Int) async throws -> Int {
        var repaired = 0
        while true {
            let batch = try await payments.call { try await $0.openPayments(limit: Self.reconciliationBatch,
                                                               quietSeconds: quietSeconds) }
            if batch.isEmpty { return repaired }
            try await convergeAll(batch, cancelledBy: .admin, cause: OrderChangeCause(.system, reason: "reconciliation"))
            repaired += batch.count
        }
    }

    /// The expiry sweep: what is due expires, then what stayed open a
    /// while is finished (`PaymentNotificationContext.sweep`). Returns how
    /// many expired.
    func sweep() async throws -> Int {
        let expired = try await expireDue()
        _ = try await reconcileOpenPayments(quietSeconds: Self.reconciliationQuietSeconds)
        return expired
    }

    /// Unpaid payments past their deadline expire, their orders are
    /// cancelled and their stock returned, `batch` at a time through the
    /// `(status, expires_at)` index. Returns how many expired.
    func expireDue() async throws -> Int {
        var expired = 0
        while true {
            let batch = try await payments.call { try await $0.expireDue(limit: Self.reconciliationBatch) }
            try await convergeAll(batch, cancelledBy: .system, cause: OrderChangeCause(.system, reason: "payment_expired"))
            expired += batch.count
            if batch.count < Self.reconciliationBatch { return expired }
        }
    }

    /// Converges a batch at once: each payment's steps are writes that wait
    /// for a group commit, and one after another a batch took a commit
    /// wait per step per payment, so expiry fell behind the rate at which
    /// orders go unpaid. Together, a batch's writes share the commits.
    private func convergeAll(_ batch: [Payment], cancelledBy actor: OrderActor, cause: OrderChangeCause) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for payment in batch {
                group.addTask { _ = try await self.converge(payment, cancelledBy: actor, cause: cause) }
            }
            try await group.waitForAll()
        }
    }

    /// Payments finished at a time by reconciliation and the expiry sweep.
    static let reconciliationBatch = 256
    /// How long a payment stays open before the sweep repairs it.
    static let reconciliationQuietSeconds = 2

    /// Returns a cancelled (once per order) and settles the order.
    private func returnStock(of order: Order) async throws {
        _ = try await catalog.call { try await $0.returnStock(key: OrdersContext.returnKey(order.id), lines: OrdersContext.stockLines(of: order),
                                                checkout: order.checkoutID) }
        _ = try await orders.call { try await $0.settle(order) }
    }

    /// Transitions tried while other requests move the same order.
    private static let maxAttempts = 3
}
