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
public final class WishlistContext: SessionFeature {
    public let identity: ContextIdentity
    public let caller: SessionCaller
    private let catalog: ClientHandle<CatalogClient>
    private let wishlists: ClientHandle<WishlistClient>

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        caller = try SessionCaller.of(creation)
        catalog = try creation.client(CatalogClient.self)
        wishlists = try creation.client(WishlistClient.self)
    }

    public func wishlist() async throws -> Wishlist {
        let user = try caller.current.user.id
        return try await shown(try await wishlists.call { try await $0.items(of: user) })
    }

    /// Saves a product (idempotent). A product on sale may be saved, one
    /// out of stock too (a shopper waits for it); an unknown or deactivated
    /// one is `product_not_found`, as `GET /products/{id}` answers it, and a
    /// full list is refused (`validation_failed`). One deactivated after it
    /// was saved stays in the list, `unavailable`, without name or price.
    public func save(_ productID: ProductID) async throws -> Wishlist {
        let user = try caller.current.user.id
        guard try await catalog.call({ try await $0.lookup(productID) })?.active == true else {
            throw EntityError.notFound(entity: "product", id: productID.description)
        }
        return try await shown(try await wishlists.call { try await $0.save(user, productID) })
    }

    /// Takes a product out; one not saved changes nothing.
    public func remove(_ productID: ProductID) async throws -> Wishlist {
        let user = try caller.current.user.id
        return try await shown(try await wishlists.call { try await $0.unsave(user, productID) })
    }

    /// The products as the catalogue holds them now, in the list's order.
    private func shown(_ items: [ProductID]) async throws -> Wishlist {
        Wishlist(items: items, products: try await catalog.call { try await $0.lookup(items) })
    }
}
