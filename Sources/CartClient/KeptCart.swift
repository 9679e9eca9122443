import Domain

/// A cart in the working set with the `cart_versions` version it was read
/// or written at. Every cart write bumps that version first, in its own
/// transaction, so a write that bumps it to exactly `version + 1` knows
/// that no other write (another replica's included) came between, and
/// starts from this cart instead of reading the lines again (`CartWrite`).
struct KeptCart: Sendable {
    let cart: Cart
    /// 0 for a user whose cart was never written (no `cart_versions` row).
    let version: Int64
}
