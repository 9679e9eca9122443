import Axiom
import CatalogClient
import Domain

/// The anonymous shop window: what anyone may do without signing in
/// (browse the catalogue). One instance for the whole process, made by the
/// orchestrator at start-up, because anonymous requests have no session of
/// their own to hang a context on.
///
/// Reads go to the catalogue client's lock-protected snapshot (`nonisolated`
/// here and there): a product lookup never queues behind this actor or
/// behind a write waiting on the disk.
public actor StorefrontContext: Context {
    public nonisolated let identity: ContextIdentity
    private nonisolated let catalog: ClientHandle<CatalogClient>

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        catalog = try creation.client(CatalogClient.self)
    }

    public enum Action: Sendable {
        case product(ProductID)
        case products(ProductQuery)
    }

    public enum Outcome: Sendable {
        case product(Product)
        case page(ProductPage)
    }

    public func send(_ action: Action) async throws -> Outcome {
        switch action {
        case .product(let id): .product(try product(id))
        case .products(let query): .page(try products(query))
        }
    }

    /// An active product. A deactivated one is not for sale and is hidden
    /// from anonymous callers exactly like a missing one.
    public nonisolated func product(_ id: ProductID) throws(DomainError) -> Product {
        guard let product = catalog.client.snapshotProduct(id), product.active else {
            throw DomainError.notFound(entity: "product", id: id.description)
        }
        return product
    }

    /// One page of active products, `q` filtering on the name.
    public nonisolated func products(_ query: ProductQuery) throws(DomainError) -> ProductPage {
        try catalog.client.products(ProductQuery(text: query.text, limit: query.limit, cursor: query.cursor,
                                                 includeInactive: false))
    }
}
