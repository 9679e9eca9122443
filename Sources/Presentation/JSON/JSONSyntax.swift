import Formats

/// A strict reading of a request body as JSON (RFC 8259), without building
/// any value, before JSONDecoder sees it. JSONDecoder is lenient where a
/// request must not be: it lets the first of two equal member names win
/// (RFC 8259 section 4: names SHOULD be unique, and receivers disagree on
/// which one counts), tolerates trailing commas, skips a byte order mark and
/// reads UTF-16 (section 8.1: JSON exchanged between systems MUST be UTF-8
/// without a BOM), and reads `1e1` or `1.0` into an integer field.
///
/// The verdict tells apart what a client needs told apart: bytes that are
/// not JSON by those rules (400 `malformed_json`) from JSON holding a
/// number this API cannot take at a named place (422 naming the field).
enum JSONSyntax {
    /// Nesting deeper than this is treated as not JSON (the decoder refuses it too).
    static let maxDepth = 512

    enum Verdict: Equatable {
        /// Strict JSON; every number an integer within Int64.
        case valid
        /// Not JSON: bad syntax, duplicate member names, not UTF-8 (a BOM,
        /// UTF-16, invalid sequences), unpaired surrogate escapes, too deep.
        case malformed
        /// JSON, but the number at `path` has a fraction or an exponent:
        /// no field of any request body is fractional, and `1e1` written
        /// for a quantity is a client's mistake, not ten.
        case notAnInteger(path: String)
        /// JSON, but the integer at `path` is beyond Int64.
        case outOfRange(path: String)
    }

    static func check(_ bytes: [UInt8]) -> Verdict {
        bytes.withUnsafeBufferPointer { bytes in
            var reader = JSONReader(bytes)
            var syntax = JSONSyntaxReader()
            reader.skipWhitespace()
            guard syntax.value(&reader, depth: 0) else { return .malformed }
            reader.skipWhitespace()
            guard reader.isAtEnd else { return .malformed }
            return syntax.numberFinding ?? .valid
        }
    }

    /// Whether `bytes` are JSON at all by the rules above (numbers of any
    /// size and form are JSON).
    static func isValid(_ bytes: [UInt8]) -> Bool {
        check(bytes) != .malformed
    }
}
