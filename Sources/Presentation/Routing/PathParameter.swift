import Domain

/// A typed path parameter (`/orders/{id}` → `OrderID`). Text that does not
/// parse names no resource: 404 with the resource's own code, exactly as an
/// id that parses but is not there (Hummingbird's `Parameters.require`).
public protocol PathParameter: Sendable {
    init?(_ text: String)
    /// The entity name in the not-found problem (`order` → `order_not_found`).
    static var entity: String { get }
}

extension OrderID: PathParameter {
    public static var entity: String { "order" }
}

extension ProductID: PathParameter {
    public static var entity: String { "product" }
}

extension UserID: PathParameter {
    public static var entity: String { "user" }
}
