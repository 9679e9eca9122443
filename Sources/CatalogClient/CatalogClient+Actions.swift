import Axiom
import Domain

// What a context asks of the catalogue; each answers its own type. The
// rules and errors are those of the client function each one runs.

extension CatalogClient {
    /// Adds a product.
    public struct Create: ClientAction {
        let draft: ProductDraft
        public func run(on catalog: isolated CatalogClient) async throws -> Product { try await catalog.create(draft) }
    }

    /// Changes name, description, price, stock, active; with
    /// `unchangedFrom`, only while the product is still that value (`If-Match`).
    public struct Update: ClientAction {
        let id: ProductID, patch: ProductPatch, unchangedFrom: Product?
        public func run(on catalog: isolated CatalogClient) async throws -> Product {
            try await catalog.update(id, patch, unchangedFrom: unchangedFrom)
        }
    }

    /// Takes stock for a checkout, all lines or none; answers the products after.
    public struct Reserve: ClientAction {
        let checkoutID: CheckoutID, lines: [StockLine]
        public func run(on catalog: isolated CatalogClient) async throws -> [Product] {
            try await catalog.reserve(checkoutID: checkoutID, lines: lines)
        }
    }

    /// The checkout's order exists: its reservation is final (taken again
    /// if it was released meanwhile, unless the order's `returnKey` was
    /// applied). Answers the lines made final (0 when it was already committed).
    public struct CommitReservation: ClientAction {
        let checkoutID: CheckoutID, ordered: [StockLine], returnKey: String?
        public func run(on catalog: isolated CatalogClient) async throws -> Int {
            try await catalog.commitReservation(checkoutID, ordered: ordered, returnKey: returnKey)
        }
    }

    /// The checkout failed or was abandoned: stock goes back. Answers the
    /// restocked products (none when there was nothing to release).
    public struct ReleaseReservation: ClientAction {
        let checkoutID: CheckoutID
        public func run(on catalog: isolated CatalogClient) async throws -> [Product] {
            try await catalog.releaseReservation(checkoutID)
        }
    }

    /// A cancelled order's stock goes back, once per key (only what its
    /// `checkout` still holds). Answers the restocked products (none when
    /// that key was already applied).
    public struct ReturnStock: ClientAction {
        let key: String, lines: [StockLine], checkout: CheckoutID?
        public func run(on catalog: isolated CatalogClient) async throws -> [Product] {
            try await catalog.returnStock(key: key, lines: lines, checkout: checkout)
        }
    }
}

extension ClientAction where Self == CatalogClient.Create {
    public static func create(_ draft: ProductDraft) -> Self { Self(draft: draft) }
}

extension ClientAction where Self == CatalogClient.Update {
    public static func update(_ id: ProductID, _ patch: ProductPatch, unchangedFrom: Product? = nil) -> Self {
        Self(id: id, patch: patch, unchangedFrom: unchangedFrom)
    }
}

extension ClientAction where Self == CatalogClient.Reserve {
    public static func reserve(_ checkoutID: CheckoutID, _ lines: [StockLine]) -> Self {
        Self(checkoutID: checkoutID, lines: lines)
    }
}

extension ClientAction where Self == CatalogClient.CommitReservation {
    public static func commitReservation(_ checkoutID: CheckoutID, ordered: [StockLine] = [],
                                         unlessReturned returnKey: String? = nil) -> Self {
        Self(checkoutID: checkoutID, ordered: ordered, returnKey: returnKey)
    }
}

extension ClientAction where Self == CatalogClient.ReleaseReservation {
    public static func releaseReservation(_ checkoutID: CheckoutID) -> Self { Self(checkoutID: checkoutID) }
}

extension ClientAction where Self == CatalogClient.ReturnStock {
    public static func returnStock(key: String, lines: [StockLine], checkout: CheckoutID? = nil) -> Self {
        Self(key: key, lines: lines, checkout: checkout)
    }
}
