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

    /// `send` answers `.create` and `.update` with `.product` (see
    /// `CatalogClient.send`); any other outcome is reported, not trapped on.
    private static func product(_ outcome: CatalogOutcome) throws -> Product {
        guard case .product(let product) = outcome else {
            throw CatalogDataError(description: "expected a product, the catalogue answered \(outcome)")
        }
        return product
    }

    private static func products(_ outcome: CatalogOutcome) -> [Product] {
        switch outcome {
        case .product(let product): [product]
        case .products(let products): products
        case .committed: []
        }
    }
}
