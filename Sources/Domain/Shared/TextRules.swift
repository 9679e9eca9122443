/// Shared checks for free text fields. Lengths count user-perceived
/// characters (`Character`), so an emoji or an accented letter counts once,
/// and UTF-8 bytes as well (at most `bytesPerCharacter` × the limit): one
/// letter followed by 100 000 combining marks is a single `Character`, so
/// counted only by characters a 200 KB name would pass a 100-character
/// limit. A character may also carry at most `maxMarksPerCharacter`
/// combining marks.
enum TextRules {
    /// UTF-8 bytes allowed per character of a limit: four is the longest
    /// encoding of one scalar, so any text of single-scalar characters fits.
    static let bytesPerCharacter = 4
    /// Combining marks (scalars of non-zero canonical combining class) one
    /// character may carry: Unicode's Stream-Safe Text Format (UAX #15
    /// section 13) allows 30 in a row; no writing system needs more.
    static let maxMarksPerCharacter = 30

    /// Checks an already trimmed single-line text: required, length bounds,
    /// no control characters, no surrounding whitespace.
    static func checkLine(_ text: String, field: String, max: Int, into errors: inout ValidationError) {
        if text.isEmpty || text.allSatisfy(\.isWhitespace) {
            errors.add(field, .required, "\(field) is required")
            return
        }
        checkSize(text, field: field, max: max, into: &errors)
        if text.first!.isWhitespace || text.last!.isWhitespace {
            errors.add(field, .invalidFormat, "\(field) must not start or end with whitespace")
        } else if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            errors.add(field, .invalidFormat, "\(field) must not contain control characters")
        } else if text.unicodeScalars.contains(where: isBidiControl) {
            errors.add(field, .invalidFormat, bidiMessage(field))
        }
    }

    /// Checks an optional multi-line text: length bound, no control
    /// characters other than tab and newlines.
    static func checkText(_ text: String, field: String, max: Int, into errors: inout ValidationError) {
        checkSize(text, field: field, max: max, into: &errors)
        let allowed: Set<Unicode.Scalar> = ["\t", "\n", "\r"]
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && !allowed.contains($0) }) {
            errors.add(field, .invalidFormat, "\(field) must not contain control characters")
        } else if text.unicodeScalars.contains(where: isBidiControl) {
            errors.add(field, .invalidFormat, bidiMessage(field))
        }
    }

    /// The bidirectional embeddings, overrides and isolates (U+202A–U+202E,
    /// U+2066–U+2069; UAX #9): they reorder everything after them until their
    /// terminator, so "‮gpj.exe" shows as "exe.jpg" in a label, an admin
    /// screen or an export (the "Trojan Source" trick). The marks (LRM
    /// U+200E, RLM U+200F, ALM U+061C) stay allowed: they only set the
    /// direction of the neutral characters next to them, which mixed
    /// Arabic or Hebrew and Latin text legitimately needs.
    static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }

    private static func bidiMessage(_ field: String) -> String {
        "\(field) must not contain bidirectional embedding, override or isolate controls (U+202A–U+202E, U+2066–U+2069)"
    }

    /// At most `max` characters, `max × bytesPerCharacter` UTF-8 bytes and
    /// `maxMarksPerCharacter` combining marks on any one character. The
    /// byte count is checked first: it is O(1), and the other two walk the text.
    private static func checkSize(_ text: String, field: String, max: Int, into errors: inout ValidationError) {
        let bytes = text.utf8.count
        if bytes > max * bytesPerCharacter {
            errors.add(field, .tooLong, "\(field) must be at most \(max * bytesPerCharacter) bytes of UTF-8, got \(bytes)")
            return
        }
        let count = text.count
        if count > max {
            errors.add(field, .tooLong, "\(field) must be at most \(max) characters, got \(count)")
        }
        if !hasBoundedMarks(text) {
            errors.add(field, .invalidFormat,
                       "\(field) must not stack more than \(maxMarksPerCharacter) combining marks on one character")
        }
    }

    /// No run of more than `maxMarksPerCharacter` combining marks.
    private static func hasBoundedMarks(_ text: String) -> Bool {
        var marks = 0
        for scalar in text.unicodeScalars {
            marks = scalar.properties.canonicalCombiningClass == .notReordered ? 0 : marks + 1
            if marks > maxMarksPerCharacter { return false }
        }
        return true
    }

    /// `trimmed`, then in Unicode Normalization Form C (UAX #15): "é" typed
    /// as e + U+0301 and as U+00E9 are the same name, stored and compared
    /// one way. FoundationEssentials has no `precomposedStringWithCanonicalMapping`
    /// (that is full Foundation, whose ICU data the static binary leaves
    /// out); the standard library's own NFC, which String
    /// comparison itself uses, is public as `_nfcCodeUnits`.
    /// Text the checks will refuse anyway (too many bytes, a mark run
    /// beyond the stream-safe bound) is left as it is: normalizing reorders
    /// each run of marks, and an unbounded run is work an attacker chooses.
    static func normalized(_ text: String, maxCharacters: Int) -> String {
        let trimmed = trimmed(text)
        // ASCII is already NFC; skip the copy for the common case.
        if trimmed.utf8.allSatisfy({ $0 < 0x80 }) { return trimmed }
        guard trimmed.utf8.count <= maxCharacters * bytesPerCharacter, hasBoundedMarks(trimmed) else { return trimmed }
        return String(decoding: trimmed._nfcCodeUnits, as: UTF8.self)
    }

    /// Leading and trailing whitespace and newlines removed.
    static func trimmed(_ text: String) -> String {
        var scalars = Substring(text)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
