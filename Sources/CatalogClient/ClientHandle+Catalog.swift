import Axiom
import Domain

/// Typed actions for contexts: each goes through `send`, so it is counted
/// and timed in the client's metrics like any other action.
extension ClientHandle where C == CatalogClient {
    public func create(_ draft: ProductDraft) async throws -> Product {
        try Self.product(await send(.create(draft)))
    }

    public func update(_ id: ProductID, _ patch: ProductPatch) async throws -> Product {
        try Self.product(await send(.update(id, patch)))
    }

    public func reserve(checkoutID: CheckoutID, lines: [StockLine]) async throws -> [Product] {
        Self.products(try await send(.reserve(checkoutID, lines)))
    }

    @discardableResult
    public func commitReservation(_ checkoutID: CheckoutID) async throws -> Int {
        if case .committed(let lines) = try await send(.commitReservation(checkoutID)) { return lines }
        return 0
    }

    @discardableResult
    public func releaseReservation(_ checkoutID: CheckoutID) async throws -> [Product] {
        Self.products(try await send(.releaseReservation(checkoutID)))
    }

    @discardableResult
    public func returnStock(key: String, lines: [StockLine]) async throws -> [Product] {
        Self.products(try await send(.returnStock(key: key, lines: lines)))
    }

    private static func product(_ outcome: CatalogOutcome) throws -> Product {
        switch outcome {
        case .product(let product): return product
        case .products(let products):
            guard let product = products.first else { throw DomainError.notFound(entity: "product", id: "") }
            return product
        case .committed: throw DomainError.notFound(entity: "product", id: "")
        }
    }

    private static func products(_ outcome: CatalogOutcome) -> [Product] {
        switch outcome {
        case .product(let product): [product]
        case .products(let products): products
        case .committed: []
        }
    }
}
