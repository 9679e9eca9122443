/// A value object that can say whether its invariants hold.
public protocol Validatable {
    /// Every broken invariant, or `nil` when the value is valid.
    func validate() -> ValidationError?
}

extension Validatable {
    public var isValid: Bool { validate() == nil }

    /// The value itself when valid; otherwise `DomainError.validation`.
    public func validated() throws(DomainError) -> Self {
        if let error = validate() { throw DomainError.validation(error) }
        return self
    }
}
