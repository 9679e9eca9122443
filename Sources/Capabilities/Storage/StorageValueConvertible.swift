import FoundationEssentials

/// A Swift type that maps to and from one `StorageValue`.
///
/// Conforming types: `Int64`, `Int`, `Int32`, `Bool`, `Double`, `String`,
/// `[UInt8]`, `Data`, `StorageValue` itself, and `Optional` of any of them
/// (`nil` ↔ `NULL`). Decoding never converts silently between text, numbers
/// and blobs: a mismatch throws `StorageError.typeMismatch`.
public protocol StorageValueConvertible: Sendable {
    var storageValue: StorageValue { get }
    /// Returns nil when `value` has the wrong storage class.
    init?(storageValue value: StorageValue)
    /// The expected storage class, for error messages.
    static var storageTypeName: String { get }
}

extension StorageValue: StorageValueConvertible {
    public var storageValue: StorageValue { self }
    public init?(storageValue value: StorageValue) { self = value }
    public static var storageTypeName: String { "any" }
}

extension Int64: StorageValueConvertible {
    public var storageValue: StorageValue { .integer(self) }
    public init?(storageValue value: StorageValue) {
        guard case .integer(let v) = value else { return nil }
        self = v
    }
    public static var storageTypeName: String { "INTEGER" }
}

extension Int: StorageValueConvertible {
    public var storageValue: StorageValue { .integer(Int64(self)) }
    public init?(storageValue value: StorageValue) {
        guard case .integer(let v) = value, let i = Int(exactly: v) else { return nil }
        self = i
    }
    public static var storageTypeName: String { "INTEGER" }
}

extension Int32: StorageValueConvertible {
    public var storageValue: StorageValue { .integer(Int64(self)) }
    public init?(storageValue value: StorageValue) {
        guard case .integer(let v) = value, let i = Int32(exactly: v) else { return nil }
        self = i
    }
    public static var storageTypeName: String { "INTEGER (32-bit)" }
}

extension Bool: StorageValueConvertible {
    public var storageValue: StorageValue { .integer(self ? 1 : 0) }
    public init?(storageValue value: StorageValue) {
        switch value {
        case .integer(0): self = false
        case .integer(1): self = true
        default: return nil
        }
    }
    public static var storageTypeName: String { "INTEGER (0 or 1)" }
}

extension Double: StorageValueConvertible {
    public var storageValue: StorageValue { .real(self) }
    public init?(storageValue value: StorageValue) {
        switch value {
        case .real(let v): self = v
        // A REAL column may hand back an integral value stored as INTEGER.
        case .integer(let v): self = Double(v)
        default: return nil
        }
    }
    public static var storageTypeName: String { "REAL" }
}

extension String: StorageValueConvertible {
    public var storageValue: StorageValue { .text(self) }
    public init?(storageValue value: StorageValue) {
        guard case .text(let v) = value else { return nil }
        self = v
    }
    public static var storageTypeName: String { "TEXT" }
}

extension Array: StorageValueConvertible where Element == UInt8 {
    public var storageValue: StorageValue { .blob(self) }
    public init?(storageValue value: StorageValue) {
        guard case .blob(let v) = value else { return nil }
        self = v
    }
    public static var storageTypeName: String { "BLOB" }
}

extension Data: StorageValueConvertible {
    public var storageValue: StorageValue { .blob([UInt8](self)) }
    public init?(storageValue value: StorageValue) {
        guard case .blob(let v) = value else { return nil }
        self = Data(v)
    }
    public static var storageTypeName: String { "BLOB" }
}

extension Optional: StorageValueConvertible where Wrapped: StorageValueConvertible {
    public var storageValue: StorageValue {
        switch self {
        case .none: .null
        case .some(let w): w.storageValue
        }
    }
    public init?(storageValue value: StorageValue) {
        if case .null = value {
            self = .none
            return
        }
        guard let w = Wrapped(storageValue: value) else { return nil }
        self = .some(w)
    }
    public static var storageTypeName: String { "\(Wrapped.storageTypeName) or NULL" }
}
