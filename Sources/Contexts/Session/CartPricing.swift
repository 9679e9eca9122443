import Axiom
import CatalogClient
import Domain
import PricingClient

/// A cart priced from the catalogue as it is now: what `GET /cart`, a
/// checkout and a `cart.updated` event all show.
struct CartPricing: Sendable {
    private let catalog: ClientHandle<CatalogClient>
    private let pricing: ClientHandle<PricingClient>

    /// The two handles from the orchestrator, for the context being made.
    init(_ creation: ContextCreation) throws {
        catalog = try creation.client(CatalogClient.self)
        pricing = try creation.client(PricingClient.self)
    }

    func quote(_ cart: Cart) async throws -> CartQuote {
        let ids = cart.lines.map(\.productID)
        let (products, currency) = try await catalog.call { (try await $0.lookup(ids), $0.currency) }
        return try pricing.call { try $0.price(cart: cart, products: products, currency: currency) }
    }
}
