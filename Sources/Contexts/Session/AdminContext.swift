import Axiom
import CatalogClient
import Domain
import JobClient
import OrderClient
import PaymentClient
import UserClient
import WebhookClient

/// A session's administration feature, admins only (the rule is
/// `refusal(of:)`, asked as each request enters): the catalogue (`POST /products`,
/// `PATCH /products/{id}`, and every product, deactivated ones too:
/// `GET /admin/products`, `GET /admin/products/{id}`), user records (`GET /users`, `PATCH /users/{id}`),
/// order status (`PATCH /orders/{id}`, a cancel through the session's
/// orders context, its downstream), the job queue and the webhooks
/// (`AdminContext+Jobs`, `AdminContext+Webhooks`) and the runtime's
/// introspection. Work an
/// admin does across domains (recording a payment received outside the
/// provider) belongs here too, reaching other domains through its clients
/// or declared downstream contexts. It holds no state (see `CartContext`).
public final class AdminContext: SessionFeature {
    public static var downstreamTypes: [any Context.Type] { [OrdersContext.self] }

    public let identity: ContextIdentity
    public let caller: SessionCaller
    private let catalog: ClientHandle<CatalogClient>
    private let users: ClientHandle<UserClient>
    private let orders: ClientHandle<OrderClient>
    private let payments: ClientHandle<PaymentClient>
    let jobs: ClientHandle<JobClient>
    let webhooks: ClientHandle<WebhookClient>

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        caller = try SessionCaller.of(creation)
        catalog = try creation.client(CatalogClient.self)
        users = try creation.client(UserClient.self)
        orders = try creation.client(OrderClient.self)
        payments = try creation.client(PaymentClient.self)
        jobs = try creation.client(JobClient.self)
        webhooks = try creation.client(WebhookClient.self)
    }

    public func createProduct(_ draft: ProductDraft) async throws -> Product {
        try await catalog.call { try await $0.create(draft) }
    }

    /// `ifMatch` (the caller's `If-Match`) is asked of the product as it
    /// is now; the change then commits only while the product is still
    /// that value (compared in the write's transaction).
    public func updateProduct(_ id: ProductID, _ patch: ProductPatch,
                                          ifMatch: (@Sendable (Product) -> Bool)? = nil) async throws -> Product {
        var seen: Product?
        if let ifMatch {
            let current = try await catalog.call { try await $0.product(id) }
            // The request's own faults first (RFC 9110 13.2.1: preconditions
            // are evaluated after the normal request checks): a patch that
            // could never apply is 422 whatever the tag, not 412.
            _ = try patch.applied(to: current)
            guard ifMatch(current) else { throw EntityError.preconditionFailed(entity: "product") }
            seen = current
        }
        return try await catalog.call { try await $0.update(id, patch, unchangedFrom: seen) }
    }

    /// A product whatever its `active` flag (`product_not_found` only when
    /// there is none): what a shopper no longer sees, an admin still finds.
    public func product(_ id: ProductID) async throws -> Product {
        try await catalog.call { try await $0.product(id) }
    }

    /// One page of the catalogue by name, or ranked matches of `q`, with
    /// the products `query.shown` keeps (active, deactivated, or all).
    public func products(_ query: ProductQuery) async throws -> ProductPage {
        try await catalog.call { try await $0.products(query) }
    }

    public func users(limit: Int, cursor: String?) async throws -> Page<User> {
        try await users.call { try await $0.users(limit: limit, after: cursor) }
    }

    public func updateUser(_ id: UserID, _ patch: UserAdminPatch) async throws -> User {
        try await users.call { try await $0.adminUpdate(id, patch) }
    }

    /// Admins move orders confirmed → shipped (paid only) → delivered (409
    /// otherwise); a cancel is the customer's cancel, stock returned.
    public func moveOrder(_ id: OrderID, to status: OrderStatus) async throws -> OrderWithPayment {
        let placedOrders = try await downstream(OrdersContext.self)
        if status == .cancelled { return try await placedOrders.cancelOrder(id) }
        if status == .shipped { return try await placedOrders.ship(id) }
        let cause = OrderChangeCause(.admin(try caller.current.user.id), reason: "status_set_by_admin")
        return try await placedOrders.withPayment(try await orders.call { try await $0.transition(id, to: status, by: .admin,
                                                                                    cause: cause) })
    }

    /// Records a payment received outside the provider (a bank transfer),
    /// by this admin: a waiting order is paid, a paid one overpaid.
    public func recordManualPayment(_ id: OrderID, amount: Int64?, reference: String) async throws -> OrderWithPayment {
        try await downstream(OrdersContext.self).recordManualPayment(id, amount: amount, reference: reference)
    }

    /// Records a refund made outside the provider, by this admin: never
    /// beyond what was paid (`refund_exceeds_paid`).
    public func recordManualRefund(_ id: OrderID, amount: Int64, reference: String) async throws -> OrderWithPayment {
        try await downstream(OrdersContext.self).recordManualRefund(id, amount: amount, reference: reference)
    }

    /// The money movements of one order, oldest first.
    public func ledger(ofOrder id: OrderID) async throws -> [LedgerEntry] {
        try await downstream(OrdersContext.self).ledger(id)
    }

    /// Up to `limit` money movements recorded in `[from, to)`, oldest first,
    /// after `position` (the last entry of the previous page).
    public func ledger(from: Timestamp, to: Timestamp, after position: (Timestamp, Int64)?, limit: Int) async throws -> [LedgerEntry] {
        try await payments.call { try await $0.ledger(from: from, to: to, after: position, limit: limit) }
    }

    /// Every customer's orders that `filter` keeps, newest first, each with
    /// its payment; `financialStatus` and `refundOwed` then keep those
    /// whose payment matches. The orders are read a page of the order
    /// filter's index range at a time and the payments of each page in one
    /// read; with payment filters a page holds what matched among at most
    /// `paymentFilterBudget` orders read, so it may hold fewer than
    /// `limit` (none even) with a `nextCursor` to go on from.
    public func orders(_ filter: OrderFilter, financialStatus: FinancialStatus?, refundOwed: Bool?, limit: Int,
                       cursor: String?) async throws -> Page<OrderWithPayment> {
        let count = max(0, limit)
        func keeps(_ payment: Payment?) -> Bool {
            if let financialStatus, payment?.financialStatus != financialStatus { return false }
            if let refundOwed, ((payment?.refundOwed ?? 0) > 0) != refundOwed { return false }
            return true
        }
        var kept: [OrderWithPayment] = []
        var after = cursor
        var read = 0
        while true {
            let page = try await orders.call { try await $0.orders(matching: filter, limit: count, after: after) }
            let found = try await payments.call { try await $0.payments(forOrders: page.items.map(\.id)) }
            read += page.items.count
            for (index, order) in page.items.enumerated() where keeps(found[order.id]) {
                kept.append(OrderWithPayment(order: order, payment: found[order.id]))
                if kept.count == count {
                    let more = index < page.items.count - 1 || page.nextCursor != nil
                    return Page(items: kept, nextCursor: more ? order.id.description : nil)
                }
            }
            guard let next = page.nextCursor else { return Page(items: kept, nextCursor: nil) }
            after = next
            if read >= Self.paymentFilterBudget { return Page(items: kept, nextCursor: next) }
        }
    }

    /// Orders one admin list request reads at most while payment filters
    /// drop them.
    static let paymentFilterBudget = 1_000

    /// Up to `limit` payments that owe money back, after `cursor`.
    public func refundsOwed(after cursor: PaymentID?, limit: Int) async throws -> [Payment] {
        try await payments.call { try await $0.owingRefunds(after: cursor, limit: limit) }
    }

    /// Up to `limit` provider refunds and chargebacks the ledger could not
    /// take, after `cursor`; `held` keeps those not applied since.
    public func paymentAnomalies(after cursor: Int64?, held: Bool, limit: Int) async throws -> [PaymentAnomaly] {
        try await payments.call { try await $0.anomalies(after: cursor, held: held, limit: limit) }
    }

    /// Admins only, as of each request (`SessionContext.enter` asks), so
    /// no function here checks again; introspection binds here for the
    /// same rule.
    public static func refusal(of caller: Authentication) -> (any Error)? {
        caller.user.isAdmin ? nil : AccessDenied.adminOnly
    }
}
