import Axiom
import Domain

// What a context asks of the wishlists; each answers the user's saved
// products after, newest first.

extension WishlistClient {
    /// Saves a product; saving one already saved changes nothing.
    public struct Save: ClientAction {
        let user: UserID, product: ProductID
        public func run(on wishlists: isolated WishlistClient) async throws -> [ProductID] {
            try await wishlists.write(.save(user, product))
        }
    }

    /// Takes a product out; one not saved changes nothing.
    public struct Remove: ClientAction {
        let user: UserID, product: ProductID
        public func run(on wishlists: isolated WishlistClient) async throws -> [ProductID] {
            try await wishlists.write(.remove(user, product))
        }
    }
}

extension ClientAction where Self == WishlistClient.Save {
    public static func save(_ user: UserID, _ product: ProductID) -> Self { Self(user: user, product: product) }
}

extension ClientAction where Self == WishlistClient.Remove {
    public static func unsave(_ user: UserID, _ product: ProductID) -> Self { Self(user: user, product: product) }
}
