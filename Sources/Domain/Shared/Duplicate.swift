/// A unique value (email, SKU, checkout) is already taken: code
/// `duplicate_<field>`.
public struct Duplicate: Refusal, Hashable {
    public let field: String
    public let value: String

    public init(field: String, value: String) {
        self.field = field
        self.value = value
    }

    public var code: String { "duplicate_\(field)" }
    public var category: RefusalCategory { .conflict }
    public var message: String { "that \(field) is already taken" }
}
