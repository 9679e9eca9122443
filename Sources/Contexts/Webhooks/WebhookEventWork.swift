import Axiom
import CatalogClient
import Domain
import OrderClient
import PaymentClient
import UserClient
import WebhookClient

/// The work of a `webhook.event` job, which a client enqueues in the
/// transaction of the change it tells of: reads the resource as the API
/// shows it now, fixes the body every endpoint is sent
/// (`WebhookPayload`: `{type, timestamp, data}`, `data.version` the job's
/// id) and fans it out (`WebhookClient.publish`).
///
/// What is told, and when, is decided here:
/// - an order's events wait until its checkout or cancellation has
///   finished, and an order whose checkout took it back (the stock sold
///   meanwhile) has none at all (`SettledOrders`);
/// - a resource that is gone (a product deleted, an account deleted or
///   never made) has its events dropped.
/// A job that runs again publishes an event already published: nothing
/// changes (the event's id is its key).
public struct WebhookEventWork: JobWork {
    public static let kinds = [WebhookEvent.kind]

    private let settled: SettledOrders
    private let payments: ClientHandle<PaymentClient>
    private let catalog: ClientHandle<CatalogClient>
    private let users: ClientHandle<UserClient>
    private let webhooks: ClientHandle<WebhookClient>

    public init(_ creation: ContextCreation) throws {
        settled = SettledOrders(orders: try creation.client(OrderClient.self))
        payments = try creation.client(PaymentClient.self)
        catalog = try creation.client(CatalogClient.self)
        users = try creation.client(UserClient.self)
        webhooks = try creation.client(WebhookClient.self)
    }

    public func run(_ job: Job) async throws {
        let event = try JobPayload.decode(job) { try WebhookEvent(job: $0) }
        let body: [UInt8]?
        do {
            body = try await self.body(of: event, version: job.id, job: job)
        } catch let error as EntityError {
            guard case .notFound = error else { throw error }
            body = nil
        }
        guard let body else { return }
        try await webhooks.call { try await $0.publish(event, body: body) }
    }

    /// The event's body, nil when nobody is to be told.
    private func body(of event: WebhookEvent, version: Int64, job: Job) async throws -> [UInt8]? {
        switch event.subject {
        case .order(let id):
            guard let order = try await settled.read(id, for: job) else { return nil }
            let payment = try await payments.call { try await $0.payment(forOrder: id) }
            return WebhookPayload.order(event, OrderWithPayment(order: order, payment: payment), version: version)
        case .product(let id):
            let product = try await catalog.call { try await $0.product(id) }
            return WebhookPayload.product(event, product, version: version)
        case .customer(let id):
            let user = try await users.call { try await $0.user(id) }
            // A deleted account keeps its row, anonymised, for its orders.
            return user.isDeleted ? nil : WebhookPayload.customer(event, user, version: version)
        }
    }
}
