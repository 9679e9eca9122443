import Axiom
import CatalogClient
import Domain
import WishlistClient

/// A saved product as a shopper sees it: what it is and costs now, and
/// whether it can be bought.
public struct SavedProduct: Sendable, Equatable {
    public enum Availability: String, Sendable {
        /// On sale, with stock.
        case inStock = "in_stock"
        /// On sale, none left now.
        case outOfStock = "out_of_stock"
        /// Taken off sale (deactivated), or no longer in the catalogue: shown
        /// without name or price either way, so a shopper learns nothing of
        /// a product the shop no longer shows (`GET /products/{id}` is 404).
        case unavailable
    }

    public let productID: ProductID
    /// Nil for a product no longer on sale (deactivated or gone).
    public let name: String?
    public let price: Money?
    public let availability: Availability
}

/// A user's wishlist: the saved products, newest first.
public struct Wishlist: Sendable, Equatable {
    public let items: [SavedProduct]

    /// `saved` (newest first) with each product as `products` holds it.
    init(items saved: [ProductID], products: [ProductID: Product]) {
        items = saved.map { id in
            guard let product = products[id], product.active else {
                return SavedProduct(productID: id, name: nil, price: nil, availability: .unavailable)
            }
            let availability: SavedProduct.Availability = product.stock > 0 ? .inStock : .outOfStock
            return SavedProduct(productID: id, name: product.name, price: product.price, availability: availability)
        }
    }
}

/// A session's wishlist feature (`/wishlist`): one list per user, shared by
/// every session of the user. It holds no state of its own, so it is a
/// plain immutable class: a request costs only the clients' turns.
public final class WishlistContext: Context {
    public let identity: ContextIdentity
    private let catalog: ClientHandle<CatalogClient>
    private let wishlists: ClientHandle<WishlistClient>

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        catalog = try creation.client(CatalogClient.self)
        wishlists = try creation.client(WishlistClient.self)
    }

    public func wishlist(of caller: Authentication) async throws -> Wishlist {
        try await shown(try await wishlists.client.items(of: caller.user.id))
    }

    /// Saves a product (idempotent). A product on sale may be saved, one
    /// out of stock too (a shopper waits for it); an unknown or deactivated
    /// one is `product_not_found`, as `GET /products/{id}` answers it, and a
    /// full list is refused (`validation_failed`). One deactivated after it
    /// was saved stays in the list, `unavailable`, without name or price.
    public func save(_ productID: ProductID, for caller: Authentication) async throws -> Wishlist {
        guard try await catalog.client.lookup(productID)?.active == true else {
            throw EntityError.notFound(entity: "product", id: productID.description)
        }
        return try await shown(try await wishlists.send(.save(caller.user.id, productID)))
    }

    /// Takes a product out; one not saved changes nothing.
    public func remove(_ productID: ProductID, for caller: Authentication) async throws -> Wishlist {
        try await shown(try await wishlists.send(.unsave(caller.user.id, productID)))
    }

    /// The products as the catalogue holds them now, in the list's order.
    private func shown(_ items: [ProductID]) async throws -> Wishlist {
        Wishlist(items: items, products: try await catalog.client.lookup(items))
    }
}
