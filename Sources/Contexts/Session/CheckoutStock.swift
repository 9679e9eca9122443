import Axiom
import CatalogClient
import Domain

/// A placed order's stock made final. The reservation was taken under the
/// checkout's lease; if the checkout outlived it (a pause longer than the
/// lease) recovery may have released it meanwhile, and committing then takes
/// the stock again in the commit's transaction, or answers the product's
/// refusal, so an order never stands without its stock.
struct CheckoutStock: Sendable {
    let catalog: ClientHandle<CatalogClient>

    init(_ creation: ContextCreation) throws {
        catalog = try creation.client(CatalogClient.self)
    }

    /// nil when `order` holds its stock (committed now or before, or the
    /// order was cancelled meanwhile and its stock is back); else why the
    /// stock could not be taken again (`insufficient_stock`,
    /// `product_inactive`, `product_not_found`), and the order must not go on.
    func commit(_ order: Order) async throws -> (any Refusal)? {
        guard let checkoutID = order.checkoutID else { return nil }
        do {
            _ = try await catalog.call { try await $0.commitReservation(checkoutID, ordered: OrdersContext.stockLines(of: order),
                                                          unlessReturned: OrdersContext.returnKey(order.id)) }
            return nil
        } catch let refusal as CatalogError {
            switch refusal {
            case .insufficientStock, .productInactive: return refusal
            case .stockLimitExceeded: throw refusal
            }
        } catch EntityError.notFound(entity: "product", let id) {
            return EntityError.notFound(entity: "product", id: id)
        }
    }
}
