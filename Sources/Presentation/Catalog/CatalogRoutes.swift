import Contexts
import Domain
import HTTPServer

/// `GET /products` and `GET /products/{id}`: the public catalogue, bound to
/// the StorefrontContext. Only turns its answers into JSON.
public struct CatalogRoutes: RouteGroup {
    public typealias Bound = StorefrontContext
    let storefront: SharedBinding<StorefrontContext>
    /// Both routes' caching: `no-cache`, or `max-age` from `catalog_max_age`.
    let policy: RoutePolicy

    public init(_ storefront: StorefrontContext, maxAge: Int = 0) {
        self.storefront = SharedBinding(storefront)
        policy = .catalog(maxAge: maxAge)
    }

    public func register(on router: inout Router) {
        router.get("/products", policy: policy, storefront.handler { request, storefront in
            try KnownQuery.require(request, only: ["q", "limit", "cursor"])
            let page = try PageRequest.from(request)
            let query = ProductQuery(text: request.query["q"], limit: page.limit, cursor: page.cursor)
            return .json(.ok, ProductJSON.page(try await storefront.products(query)))
        })
        router.get("/products/{id}", policy: policy, storefront.handler { request, storefront in
            let id = try request.parameter("id", as: ProductID.self)
            return try await storefront.product(id, representedAs: ProductPageBody.init).response
        })
    }
}
