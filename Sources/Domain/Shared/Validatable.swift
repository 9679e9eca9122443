/// A value object that can say whether its invariants hold.
///
/// Conventions of the Domain module:
/// - Construction: memberwise initialisers do not validate (storage loads
///   rows as they are); every change that can break an invariant goes
///   through a business method that validates and throws its feature's
///   `Refusal` (`ValidationError`, `CartError`, …). `validate()` reports
///   every failing field, never just the first.
/// - JSON: domain types carry snake_case `CodingKeys` that match the API
///   (`created_at`, `user_id`, `unit_price`, lines as `items`), so the
///   presentation layer encodes them with a plain `JSONEncoder` and no key
///   strategy. Leaf values (ids, `Email`, `Currency`, `Timestamp`, enums)
///   refuse malformed input while decoding; aggregates (`User`, `Product`,
///   `Cart`, `Order`) decode structurally, so a decoder of untrusted input
///   calls `validated()` next (the `…State.insert`/`update` methods do).
///   Timestamps are RFC 3339 strings in UTC with milliseconds.
public protocol Validatable {
    /// Every broken invariant, or `nil` when the value is valid.
    func validate() -> ValidationError?
}

extension Validatable {
    public var isValid: Bool { validate() == nil }

    /// The value itself when valid; otherwise its `ValidationError`.
    public func validated() throws -> Self {
        if let error = validate() { throw error }
        return self
    }
}
