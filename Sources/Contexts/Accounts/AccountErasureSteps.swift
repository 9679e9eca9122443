import Axiom
import CartClient
import Domain
import OrderClient
import WishlistClient

/// What a deleted account leaves in other clients, erased: its cart, its
/// wishlist and its orders' shipping addresses (the orders, their payments
/// and the ledger keep their amounts under the anonymised user). Each step
/// changes nothing the second time, so the deletion request and its queued
/// `account.erase` job may both run them, in any order, any number of times.
struct AccountErasureSteps: Sendable {
    let carts: ClientHandle<CartClient>
    let wishlists: ClientHandle<WishlistClient>
    let orders: ClientHandle<OrderClient>

    init(_ creation: ContextCreation) throws {
        carts = try creation.client(CartClient.self)
        wishlists = try creation.client(WishlistClient.self)
        orders = try creation.client(OrderClient.self)
    }

    func erase(_ user: UserID) async throws {
        _ = try await carts.call { try await $0.clear(user) }
        _ = try await wishlists.call { try await $0.clear(user) }
        _ = try await orders.call { try await $0.eraseShippingAddresses(of: user) }
    }
}
