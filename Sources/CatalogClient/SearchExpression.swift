import Domain

/// A caller's search words as a query that can only mean "these words", in
/// both search engines' syntax:
///
/// - `match`, an FTS5 MATCH expression (SQLite): each word becomes a quoted
///   string (a `"` inside doubled, FTS5's only escape inside quotes), so
///   `NEAR`, `AND`, `-`, `*`, `:`, `^` and parentheses are text, never query
///   syntax. The strings are joined by spaces (FTS5's implicit AND); the
///   last one gets `*`, a prefix match, for search-as-you-type.
/// - `tsquery`, `to_tsquery` input (PostgreSQL): each word becomes a quoted
///   lexeme (`'` doubled and `\` escaped, the two characters tsquery reads
///   inside quotes), so `&`, `|`, `!`, `<->`, `:*`, weights (`:A`) and
///   parentheses are text. The lexemes are joined by `&`; the last one gets
///   `:*`, a prefix match. A quoted word the parser splits (`dash-board`)
///   becomes a phrase of its parts, as in FTS5.
///
/// A word the tokenizer reduces to nothing (`-`, `()`) adds no condition;
/// when no word is left, nothing matches.
struct SearchExpression: Hashable, Sendable {
    let match: String
    /// `match`'s phrases, one per word in order: what the SQLite ranking
    /// counts documents for (`CatalogStore.documentCount`).
    let phrases: [String]
    let tsquery: String

    init(terms: [Substring]) {
        var quoted = terms.map { term in
            "\"" + term.replacing("\"", with: "\"\"") + "\""
        }
        if let last = quoted.popLast() { quoted.append(last + "*") }
        phrases = quoted
        match = quoted.joined(separator: " ")
        var lexemes = terms.map { term in
            "'" + term.replacing("\\", with: "\\\\").replacing("'", with: "''") + "'"
        }
        if let last = lexemes.popLast() { lexemes.append(last + ":*") }
        tsquery = lexemes.joined(separator: " & ")
    }
}
