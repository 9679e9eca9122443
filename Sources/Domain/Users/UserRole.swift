/// What a user may do: customers manage their own account, cart and orders;
/// admins also manage the catalogue, users and order fulfilment.
public enum UserRole: String, Hashable, Sendable, Codable, CaseIterable {
    case customer
    case admin
}
