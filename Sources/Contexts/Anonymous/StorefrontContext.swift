import Axiom
import CatalogClient
import Domain

/// The anonymous shop window (`GET /products`, `GET /products/{id}`). One
/// instance for the whole process, made by the orchestrator at start-up,
/// because anonymous requests have no session of their own to hang a
/// context on.
///
/// Reads go to the catalogue client's query functions (its working set,
/// storage on a miss): a product lookup never queues behind a write
/// waiting on the disk.
public final class StorefrontContext: Context {
    public let identity: ContextIdentity
    @usableFromInline let catalog: ClientHandle<CatalogClient>

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        catalog = try creation.client(CatalogClient.self)
    }

    /// An active product as `make` represents it (its encoded page), made
    /// once per version the catalogue's working set holds and kept with it.
    /// A deactivated one is not for sale and is hidden from anonymous
    /// callers exactly like a missing one.
    @inlinable
    public func product<Representation: Sendable>(
        _ id: ProductID, representedAs make: (Product) throws -> Representation
    ) async throws -> Representation {
        guard let representation = try await catalog.call({ try await $0.lookup(id, representedAs: make, where: { $0.active }) }) else {
            throw EntityError.notFound(entity: "product", id: id.description)
        }
        return representation
    }

    /// Upkeep of the search this window serves: one round of merging the
    /// catalogue's search index (`CatalogClient.compactSearchIndex`), nil
    /// when there was nothing to do.
    public func compactSearchIndex() async throws -> CatalogClient.SearchIndexCompaction? {
        try await catalog.call { try await $0.compactSearchIndex() }
    }

    /// One page of active products: by name, or ranked matches of `q`.
    public func products(_ query: ProductQuery) async throws -> ProductPage {
        try await catalog.call { try await $0.products(ProductQuery(text: query.text, limit: query.limit, cursor: query.cursor,
                                                 includeInactive: false)) }
    }
}
