/// Every failing field of one validation, in the order they were checked.
///
/// Validation never stops at the first problem: a `validate()` reports all of
/// them so a client can fix a form in one round trip. A value is built by
/// appending and is only thrown when it is not empty.
public struct ValidationError: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    public private(set) var errors: [FieldError]

    public init(_ errors: [FieldError] = []) {
        self.errors = errors
    }

    public var isEmpty: Bool { errors.isEmpty }

    /// The failing field names, in order (a field may appear once per code).
    public var fields: [String] { errors.map(\.field) }

    /// The codes reported for one field.
    public func codes(for field: String) -> [FieldError.Code] {
        errors.filter { $0.field == field }.map(\.code)
    }

    public mutating func add(_ field: String, _ code: FieldError.Code, _ message: String) {
        errors.append(FieldError(field: field, code: code, message: message))
    }

    public mutating func add(_ error: FieldError?) {
        if let error { errors.append(error) }
    }

    /// Appends another validation's errors, prefixing their field paths
    /// (`prefix` `items[0]` turns `quantity` into `items[0].quantity`).
    ///
    /// `prefix` is evaluated only when `other` holds errors: callers build it
    /// per element (`"items[\(index)]"`), and a cart is validated on every
    /// change.
    public mutating func merge(_ other: ValidationError?, prefix: @autoclosure () -> String? = nil) {
        guard let other else { return }
        let prefix = prefix()
        for error in other.errors {
            let field = prefix.map { "\($0).\(error.field)" } ?? error.field
            errors.append(FieldError(field: field, code: error.code, message: error.message))
        }
    }

    /// `nil` when nothing failed: the shape `validate()` returns.
    public var orNil: ValidationError? { errors.isEmpty ? nil : self }

    /// Throws itself when anything failed.
    public func throwIfAny() throws(ValidationError) {
        if !errors.isEmpty { throw self }
    }

    public var description: String { errors.map(\.description).joined(separator: "; ") }
}
