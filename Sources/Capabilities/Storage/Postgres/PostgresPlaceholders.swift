/// Rewrites SQLite's positional `?` placeholders into PostgreSQL's `$1`,
/// `$2`, … so store code writes one statement for both backends. A `?`
/// inside a string literal, a quoted identifier or a comment is left alone.
enum PostgresPlaceholders {
    /// The rewritten SQL and the number of placeholders it has.
    static func rewrite(_ sql: String) -> (sql: String, count: Int) {
        var output = ""
        output.reserveCapacity(sql.utf8.count + 8)
        var count = 0
        var quote: Character?
        var lineComment = false
        var previous: Character?
        for character in sql {
            defer { previous = character }
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
                count += 1
                output += "$\(count)"
            default:
                output.append(character)
            }
        }
        return (output, count)
    }
}
