import Domain

/// Published after every change applied to the catalogue's state.
public enum CatalogUpdate: Sendable, Hashable {
    case created(Product)
    /// Any later change: fields, price, stock (reservations, releases,
    /// returns), active flag.
    case changed(Product)
}
