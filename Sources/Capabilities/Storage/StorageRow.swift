/// One result row, fully copied out of the database (safe to keep and send).
///
///     let name: String = try row.get("name")
///     let note: String? = try row.get("note")     // NULL → nil
///     let id = try row.get(0, as: Int64.self)
public struct StorageRow: Sendable, Hashable {
    /// Column names in result order (shared by all rows of one query).
    public let columns: [String]
    public let values: [StorageValue]

    public init(columns: [String], values: [StorageValue]) {
        precondition(columns.count == values.count, "one value per column")
        self.columns = columns
        self.values = values
    }

    public var count: Int { values.count }

    /// The raw value at `index` (0-based); traps when out of range, like an array.
    public subscript(index: Int) -> StorageValue { values[index] }

    /// The raw value of the first column named `name`, or nil when there is none.
    public subscript(name: String) -> StorageValue? {
        columns.firstIndex(of: name).map { values[$0] }
    }

    /// Decodes column `index`; throws when out of range or of the wrong type.
    /// Inlinable (as the other decoding entry points) so that a store's
    /// `row.get(0) as Int64` is specialized where it is written instead of
    /// looking up generic metadata for every value it decodes.
    @inlinable
    public func get<T: StorageValueConvertible>(_ index: Int, as type: T.Type = T.self) throws -> T {
        guard values.indices.contains(index) else {
            throw StorageError.columnNotFound("#\(index)")
        }
        return try decode(values[index], column: columns[index])
    }

    /// Decodes the first column named `name`; throws when missing or of the wrong type.
    @inlinable
    public func get<T: StorageValueConvertible>(_ name: String, as type: T.Type = T.self) throws -> T {
        guard let index = columns.firstIndex(of: name) else {
            throw StorageError.columnNotFound(name)
        }
        return try decode(values[index], column: name)
    }

    @inlinable
    func decode<T: StorageValueConvertible>(_ value: StorageValue, column: String) throws -> T {
        guard let decoded = T(storageValue: value) else {
            throw StorageError.typeMismatch(column: column, expected: T.storageTypeName, actual: value.typeName)
        }
        return decoded
    }
}
