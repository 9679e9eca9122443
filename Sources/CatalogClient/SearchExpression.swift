import Domain

/// A caller's search words as a query that can only mean "these words", in
/// both search engines' syntax:
///
/// - `match`, an FTS5 MATCH expression (SQLite): each word becomes a quoted
///   string (a `"` inside doubled, FTS5's only escape inside quotes), so
///   `NEAR`, `AND`, `-`, `*`, `:`, `^` and parentheses are text, never query
///   syntax. The words are joined by spaces (FTS5's implicit AND); the
///   last one gets `*`, a prefix match, for search-as-you-type.
/// - `tsquery`, `to_tsquery` input (PostgreSQL): each word becomes a quoted
///   lexeme (`'` doubled and `\` escaped, the two characters tsquery reads
///   inside quotes), so `&`, `|`, `!`, `<->`, `:*`, weights (`:A`) and
///   parentheses are text. The words are joined by `&`; the last one gets
///   `:*`, a prefix match. A quoted word the parser splits (`dash-board`)
///   becomes a phrase of its parts, as in FTS5.
///
/// A word of letters stands for every form with its stem (`SearchStem`): `mugs` for
/// `mugs` or `mug`, `mug` for `mug` or `mugs`, each form a phrase and the
/// forms ORed (`("mug" OR "mugs")`, `('mug' | 'mugs')`); the last word's
/// stem is a prefix (`mugs` → `"mug"*`). So a word finds its singular and
/// its plural whichever of them is indexed, and most words stay one phrase
/// or two.
///
/// A word with no letter or digit (`-`, `()`) is one the tokenizers reduce
/// to nothing: it adds no condition; when no word is left, nothing matches.
struct SearchExpression: Hashable, Sendable {
    let match: String
    /// `match`'s phrases in order: what the SQLite ranking counts documents
    /// for (`CatalogStore.documentCount`), one count for each.
    let phrases: [String]
    /// The phrases of each word: the words are ANDed, a word's phrases ORed.
    let groups: [[String]]
    let tsquery: String
    /// The whole text case-folded as names are (`ProductCursor.fold`): a
    /// product whose name is exactly this ranks first.
    let exactName: String

    /// What `SearchCache` keeps a ranking by: the match and the exact name
    /// it puts first (two texts may differ only in words that add no
    /// condition).
    var cacheKey: String { match + "\u{1F}" + exactName }

    private struct Form {
        let text: String
        let prefix: Bool
    }

    init(terms: [Substring]) {
        exactName = ProductCursor.fold(terms.joined(separator: " "))
        let words = terms.filter { $0.contains { $0.isLetter || $0.isNumber } }
        let forms: [[Form]] = words.enumerated().map { index, term in
            let word = String(term), lower = word.lowercased()
            // Only a word of letters has a plural here: `o'neil`, `b|c`,
            // `x200` stay the one phrase they are.
            guard lower.allSatisfy(\.isLetter) else {
                return [Form(text: word, prefix: index == words.count - 1)]
            }
            // As typed where the form is the word itself, so that a word
            // the rules leave alone is the phrase it always was.
            func typed(_ form: String) -> String { form == lower ? word : form }
            guard index == words.count - 1 else {
                return SearchStem.forms(of: lower).map { Form(text: typed($0), prefix: false) }
            }
            let (prefixes, whole) = SearchStem.prefixForms(of: lower)
            return prefixes.map { Form(text: typed($0), prefix: true) } + whole.map { Form(text: $0, prefix: false) }
        }
        groups = forms.map { group in
            group.map { "\"" + $0.text.replacing("\"", with: "\"\"") + "\"" + ($0.prefix ? "*" : "") }
        }
        phrases = groups.flatMap { $0 }
        // FTS5 takes the implicit AND between phrases only: beside a
        // parenthesized group it must be spelt out.
        match = groups.map { $0.count == 1 ? $0[0] : "(" + $0.joined(separator: " OR ") + ")" }
            .joined(separator: groups.allSatisfy { $0.count == 1 } ? " " : " AND ")
        tsquery = forms.map { group in
            let lexemes = group.map {
                "'" + $0.text.replacing("\\", with: "\\\\").replacing("'", with: "''") + "'" + ($0.prefix ? ":*" : "")
            }
            return lexemes.count == 1 ? lexemes[0] : "(" + lexemes.joined(separator: " | ") + ")"
        }.joined(separator: " & ")
    }
}
