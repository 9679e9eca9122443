import Domain

/// What a context asks of the catalogue. See the `CatalogClient` method of
/// the same name for each case's rules and errors.
public enum CatalogAction: Sendable {
    /// Adds a product → `.product`.
    case create(ProductDraft)
    /// Changes name, description, price, stock, active → `.product`; with
    /// `unchangedFrom`, only while the product is still that value
    /// (`precondition_failed` otherwise: `If-Match`).
    case update(ProductID, ProductPatch, unchangedFrom: Product? = nil)
    /// Takes stock for a checkout, all lines or none → `.products` (after).
    case reserve(CheckoutID, [StockLine])
    /// The checkout's order exists: its reservation is final → `.committed`.
    case commitReservation(CheckoutID)
    /// The checkout failed or was abandoned: stock goes back → `.products`
    /// (the restocked products; empty when there was nothing to release).
    case releaseReservation(CheckoutID)
    /// A cancelled order's stock goes back, once per key → `.products` (the
    /// restocked products; empty when that key was already applied).
    case returnStock(key: String, lines: [StockLine])
}

/// What a `CatalogAction` yields.
public enum CatalogOutcome: Sendable, Hashable {
    case product(Product)
    case products([Product])
    /// Reservation lines made final (0 when it was already committed).
    case committed(lines: Int)
}

/// Published after every change applied to the catalogue's state.
public enum CatalogUpdate: Sendable, Hashable {
    case created(Product)
    /// Any later change: fields, price, stock (reservations, releases,
    /// returns), active flag.
    case changed(Product)
}
