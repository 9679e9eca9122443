/// Shared checks for free text fields. Lengths count user-perceived
/// characters (`Character`), so an emoji or an accented letter counts once.
enum TextRules {
    /// Checks an already trimmed single-line text: required, length bounds,
    /// no control characters, no surrounding whitespace.
    static func checkLine(_ text: String, field: String, max: Int, into errors: inout ValidationError) {
        if text.isEmpty || text.allSatisfy(\.isWhitespace) {
            errors.add(field, .required, "\(field) is required")
            return
        }
        let count = text.count
        if count > max {
            errors.add(field, .tooLong, "\(field) must be at most \(max) characters, got \(count)")
        }
        if text.first!.isWhitespace || text.last!.isWhitespace {
            errors.add(field, .invalidFormat, "\(field) must not start or end with whitespace")
        } else if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            errors.add(field, .invalidFormat, "\(field) must not contain control characters")
        }
    }

    /// Checks an optional multi-line text: length bound, no control
    /// characters other than tab and newlines.
    static func checkText(_ text: String, field: String, max: Int, into errors: inout ValidationError) {
        let count = text.count
        if count > max {
            errors.add(field, .tooLong, "\(field) must be at most \(max) characters, got \(count)")
        }
        let allowed: Set<Unicode.Scalar> = ["\t", "\n", "\r"]
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && !allowed.contains($0) }) {
            errors.add(field, .invalidFormat, "\(field) must not contain control characters")
        }
    }

    /// Leading and trailing whitespace and newlines removed.
    static func trimmed(_ text: String) -> String {
        var scalars = Substring(text)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
