import CLibPQ
import Glibc

/// Bound values in libpq's shape: C strings in text format for numbers and
/// text, raw bytes in binary format for blobs (bytea), a null pointer for
/// NULL. Freed by `release()` after the call.
struct PostgresParameters {
    private var values: [UnsafeMutablePointer<CChar>?] = []
    private var lengths: [Int32] = []
    private var formats: [Int32] = []

    init(_ arguments: [StorageValue]) {
        for argument in arguments {
            switch argument {
            case .null: append(nil, length: 0, format: 0)
            case .integer(let value): append(strdup(String(value)), length: 0, format: 0)
            case .real(let value): append(strdup(Self.text(value)), length: 0, format: 0)
            case .text(let value): append(strdup(value), length: 0, format: 0)
            case .blob(let bytes):
                let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(1, bytes.count), alignment: 1)
                bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(buffer), byteCount: bytes.count) }
                append(buffer.assumingMemoryBound(to: CChar.self), length: Int32(bytes.count), format: 1)
            }
        }
    }

    private mutating func append(_ value: UnsafeMutablePointer<CChar>?, length: Int32, format: Int32) {
        values.append(value)
        lengths.append(length)
        formats.append(format)
    }

    /// PostgreSQL spells the non-finite floats out; Swift's description of a
    /// finite Double reads back to the same value.
    private static func text(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        return String(value)
    }

    func withArrays<R>(_ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> R) -> R {
        let constant = values.map { UnsafePointer($0) }
        return constant.withUnsafeBufferPointer { v in
            lengths.withUnsafeBufferPointer { l in
                formats.withUnsafeBufferPointer { f in
                    body(v.baseAddress, l.baseAddress, f.baseAddress)
                }
            }
        }
    }

    func release() {
        for (value, format) in zip(values, formats) {
            if format == 1 { value?.deallocate() } else { free(value) }
        }
    }
}
