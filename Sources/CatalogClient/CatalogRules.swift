import Domain

/// The catalogue's checks beyond each value's own `validate()`: every price
/// in the deployment's currency, and the shape of a return key. Each reports
/// every failing field at once.
enum CatalogRules {
    static let maxReturnKeyLength = 200

    /// The product `draft` makes under `id`, or `validation` listing every
    /// failing field (`price.currency` when not the deployment's).
    static func product(from draft: ProductDraft, id: ProductID, currency: Currency) throws -> Product {
        var errors = draft.validate() ?? ValidationError()
        errors.add(currencyError(draft.price, currency))
        try errors.throwIfAny()
        return try draft.makeProduct(id: id)
    }

    /// `product` with `patch` applied, or `validation` listing every failing field.
    static func patched(_ product: Product, with patch: ProductPatch, currency: Currency) throws -> Product {
        var errors = ValidationError()
        let result = Result { () throws -> Product in try patch.applied(to: product) }
        if case .failure(let failure) = result {
            guard let fields = failure as? ValidationError else { throw failure }
            errors.merge(fields)
        }
        if let price = patch.price { errors.add(currencyError(price, currency)) }
        try errors.throwIfAny()
        return try result.get()
    }

    /// A return key: 1–200 characters, no control characters.
    static func validateReturnKey(_ key: String) -> ValidationError? {
        var errors = ValidationError()
        if key.isEmpty {
            errors.add("key", .required, "a return key is required")
        } else if key.count > maxReturnKeyLength {
            errors.add("key", .tooLong, "key must be at most \(maxReturnKeyLength) characters")
        }
        if key.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            errors.add("key", .invalidFormat, "key must not contain control characters")
        }
        return errors.orNil
    }

    private static func currencyError(_ price: Money, _ currency: Currency) -> FieldError? {
        price.currency == currency ? nil : FieldError(
            field: "price.currency", code: .inconsistent, message: "price must be in \(currency.code)")
    }
}
