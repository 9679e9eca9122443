/// Rewrites SQLite's placeholders into PostgreSQL's `$1`, `$2`, … so store
/// code writes one statement for both backends: `?NNN` becomes `$NNN` (the
/// cart's upsert uses `?1` twice), a plain `?` takes the number after the
/// largest so far, as in SQLite. A `?` inside a string literal, a quoted
/// identifier or a comment is left alone.
enum PostgresPlaceholders {
    /// The rewritten SQL and the number of parameters it takes.
    static func rewrite(_ sql: String) -> (sql: String, count: Int) {
        var output = ""
        output.reserveCapacity(sql.utf8.count + 8)
        var count = 0
        var digits: String?
        var quote: Character?
        var lineComment = false
        var previous: Character?
        func finishNumber() {
            guard let number = digits else { return }
            digits = nil
            if let index = Int(number) {
                count = max(count, index)
                output += "$\(index)"
            } else {
                count += 1
                output += "$\(count)"
            }
        }
        for character in sql {
            defer { previous = character }
            if digits != nil {
                if character.isASCII, character.isNumber {
                    digits?.append(character)
                    continue
                }
                finishNumber()
            }
            if lineComment {
                if character == "\n" { lineComment = false }
                output.append(character)
                continue
            }
            if let open = quote {
                if character == open { quote = nil }
                output.append(character)
                continue
            }
            switch character {
            case "'", "\"":
                quote = character
                output.append(character)
            case "-" where previous == "-":
                lineComment = true
                output.append(character)
            case "?":
                digits = ""
            default:
                output.append(character)
            }
        }
        finishNumber()
        return (output, count)
    }
}
