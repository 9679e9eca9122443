import Contexts
import Domain
import HTTPServer

/// `GET /products` and `GET /products/{id}`: the public catalogue, bound to
/// the StorefrontContext. Only turns its answers into JSON.
public enum CatalogRoutes {
    public static let name = "CatalogRoutes"

    /// `cachedProducts`: how many products' JSON to keep, the catalogue's
    /// own working-set bound (`catalog_cache_entries`), so memory stays
    /// bounded by configuration rather than by the catalogue's size.
    public static func register(on router: inout Router, storefront: StorefrontContext, cachedProducts: Int) {
        let representations = RepresentationCache<ProductID, Product>(capacity: cachedProducts,
                                                                    encode: ProductJSON.bytes)
        router.get("/products") { request in
            try await ErrorResponses.handling {
                let page = try PageRequest.from(request)
                let query = ProductQuery(text: request.query["q"], limit: page.limit, cursor: page.cursor)
                return .json(.ok, ProductJSON.page(try await storefront.products(query)))
            }
        }
        router.get("/products/{id}") { request in
            try await ErrorResponses.handling {
                let text = request.parameters["id"] ?? ""
                // An id that is not even a UUID names no product: 404, like any other miss.
                guard let id = ProductID(text) else { throw DomainError.notFound(entity: "product", id: text) }
                return .json(.ok, try representations.bytes(for: id, value: try await storefront.product(id)))
            }
        }
    }
}
