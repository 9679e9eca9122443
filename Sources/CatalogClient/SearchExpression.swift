import Domain

/// A caller's search words as an FTS5 MATCH expression that can only mean
/// "these words": each word becomes a quoted string (a `"` inside doubled,
/// FTS5's only escape inside quotes), so `NEAR`, `AND`, `-`, `*`, `:`,
/// `^` and parentheses are text, never query syntax. The strings are
/// joined by spaces (FTS5's implicit AND); the last one gets `*`, a prefix
/// match, for search-as-you-type. A word the tokenizer reduces to nothing
/// (`-`, `()`) adds no condition; when no word is left, nothing matches.
struct SearchExpression: Hashable, Sendable {
    let match: String

    init(terms: [Substring]) {
        var quoted = terms.map { term in
            "\"" + term.replacing("\"", with: "\"\"") + "\""
        }
        if let last = quoted.popLast() { quoted.append(last + "*") }
        match = quoted.joined(separator: " ")
    }
}
