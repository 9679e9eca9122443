import Axiom
import CartClient
import CatalogClient
import OrderClient

/// What a checkout touches, for the context that runs checkouts and the one
/// that repairs those a crash interrupted: the same clients and steps, so
/// a repair does what the checkout would have.
struct CheckoutClients: Sendable {
    let catalog: ClientHandle<CatalogClient>
    let carts: ClientHandle<CartClient>
    let orders: ClientHandle<OrderClient>
    let payments: CheckoutPayments
    let stock: CheckoutStock

    init(_ creation: ContextCreation) throws {
        catalog = try creation.client(CatalogClient.self)
        carts = try creation.client(CartClient.self)
        orders = try creation.client(OrderClient.self)
        payments = try CheckoutPayments(creation)
        stock = try CheckoutStock(creation)
    }
}
