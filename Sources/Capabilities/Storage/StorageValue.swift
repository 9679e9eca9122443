import FoundationEssentials

/// One stored value, as bound to a statement parameter or read from a
/// column, on either backend.
///
/// The five cases are SQLite's storage classes; the PostgreSQL handle binds
/// and reads its values through them too. Literals work directly:
/// `["alice", 42, 1.5, nil]` is a valid `[StorageValue]`.
public enum StorageValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// The storage class name, as SQLite spells it (used in error messages).
    public var typeName: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }
}

extension StorageValue: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) { self = .null }
}

extension StorageValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension StorageValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .real(value) }
}

extension StorageValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
}

extension StorageValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}
