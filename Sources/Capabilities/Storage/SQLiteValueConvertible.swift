import FoundationEssentials

/// A Swift type that maps to and from one SQLite value.
///
/// Conforming types: `Int64`, `Int`, `Int32`, `Bool`, `Double`, `String`,
/// `[UInt8]`, `Data`, `SQLiteValue` itself, and `Optional` of any of them
/// (`nil` ↔ `NULL`). Decoding never converts silently between text, numbers
/// and blobs: a mismatch throws `StorageError.typeMismatch`.
public protocol SQLiteValueConvertible: Sendable {
    var sqliteValue: SQLiteValue { get }
    /// Returns nil when `value` has the wrong storage class.
    init?(sqliteValue value: SQLiteValue)
    /// The expected storage class, for error messages.
    static var sqliteTypeName: String { get }
}

extension SQLiteValue: SQLiteValueConvertible {
    public var sqliteValue: SQLiteValue { self }
    public init?(sqliteValue value: SQLiteValue) { self = value }
    public static var sqliteTypeName: String { "any" }
}

extension Int64: SQLiteValueConvertible {
    public var sqliteValue: SQLiteValue { .integer(self) }
    public init?(sqliteValue value: SQLiteValue) {
        guard case .integer(let v) = value else { return nil }
        self = v
    }
    public static var sqliteTypeName: String { "INTEGER" }
}

extension Int: SQLiteValueConvertible {
    public var sqliteValue: SQLiteValue { .integer(Int64(self)) }
    public init?(sqliteValue value: SQLiteValue) {
        guard case .integer(let v) = value, let i = Int(exactly: v) else { return nil }
        self = i
    }
    public static var sqliteTypeName: String { "INTEGER" }
}

extension Int32: SQLiteValueConvertible {
    public var sqliteValue: SQLiteValue { .integer(Int64(self)) }
    public init?(sqliteValue value: SQLiteValue) {
        guard case .integer(let v) = value, let i = Int32(exactly: v) else { return nil }
        self = i
    }
    public static var sqliteTypeName: String { "INTEGER (32-bit)" }
}

extension Bool: SQLiteValueConvertible {
    public var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) }
    public init?(sqliteValue value: SQLiteValue) {
        switch value {
        case .integer(0): self = false
        case .integer(1): self = true
        default: return nil
        }
    }
    public static var sqliteTypeName: String { "INTEGER (0 or 1)" }
}

extension Double: SQLiteValueConvertible {
    public var sqliteValue: SQLiteValue { .real(self) }
    public init?(sqliteValue value: SQLiteValue) {
        switch value {
        case .real(let v): self = v
        // A REAL column may hand back an integral value stored as INTEGER.
        case .integer(let v): self = Double(v)
        default: return nil
        }
    }
    public static var sqliteTypeName: String { "REAL" }
}

extension String: SQLiteValueConvertible {
    public var sqliteValue: SQLiteValue { .text(self) }
    public init?(sqliteValue value: SQLiteValue) {
        guard case .text(let v) = value else { return nil }
        self = v
    }
    public static var sqliteTypeName: String { "TEXT" }
}

extension Array: SQLiteValueConvertible where Element == UInt8 {
    public var sqliteValue: SQLiteValue { .blob(self) }
    public init?(sqliteValue value: SQLiteValue) {
        guard case .blob(let v) = value else { return nil }
        self = v
    }
    public static var sqliteTypeName: String { "BLOB" }
}

extension Data: SQLiteValueConvertible {
    public var sqliteValue: SQLiteValue { .blob([UInt8](self)) }
    public init?(sqliteValue value: SQLiteValue) {
        guard case .blob(let v) = value else { return nil }
        self = Data(v)
    }
    public static var sqliteTypeName: String { "BLOB" }
}

extension Optional: SQLiteValueConvertible where Wrapped: SQLiteValueConvertible {
    public var sqliteValue: SQLiteValue {
        switch self {
        case .none: .null
        case .some(let w): w.sqliteValue
        }
    }
    public init?(sqliteValue value: SQLiteValue) {
        if case .null = value {
            self = .none
            return
        }
        guard let w = Wrapped(sqliteValue: value) else { return nil }
        self = .some(w)
    }
    public static var sqliteTypeName: String { "\(Wrapped.sqliteTypeName) or NULL" }
}
