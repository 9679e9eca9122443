import Domain

/// The rules an admin's money record meets: every failing field listed.
enum MoneyReference {
    /// Longest reference kept (a bank transfer's reference is far shorter).
    static let maxReferenceLength = 200

    /// The reference 1–200 characters, not all spaces, no control
    /// characters; the amount, when given, positive.
    static func validate(reference text: String, amount: Int64?) throws {
        var errors: [FieldError] = []
        if !(1...maxReferenceLength).contains(text.count) || !text.contains(where: { !$0.isWhitespace })
            || text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            errors.append(FieldError(field: "reference", code: .invalidFormat,
                                     message: "reference must be 1 to \(maxReferenceLength) characters without control characters"))
        }
        if let amount, amount <= 0 {
            errors.append(FieldError(field: "amount", code: .outOfRange,
                                     message: "amount must be a positive number of minor units"))
        }
        guard errors.isEmpty else { throw ValidationError(errors) }
    }
}
