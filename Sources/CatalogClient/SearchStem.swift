/// The catalogue search's simple English stemming: a word and its regular
/// plural have one stem, so that `mugs` finds "Mug" and `mug` finds
/// "Mugs". On a lowercased word:
///
/// - `…ies` after a consonant, 5 letters or more → `…y` (`candies` → `candy`);
/// - `…es` after `s`, `x`, `z`, `ch` or `sh` → without it (`boxes` → `box`);
/// - `…s`, except `…ss`, `…us` and `…is`, after a letter, 3 letters or more
///   → without it (`mugs` → `mug`, `kettles` → `kettle`);
/// - anything else is its own stem.
///
/// The index is not stemmed (no migration, the index format and the cost
/// of a write unchanged): `SearchExpression` asks for every indexed form
/// that has the query word's stem, which is the same match as stemming
/// both sides, in both engines.
enum SearchStem {
    static func stem(_ word: String) -> String {
        let letters = Array(word)
        let count = letters.count
        if count >= 5, word.hasSuffix("ies"), isConsonant(letters[count - 4]) {
            return String(letters.dropLast(3)) + "y"
        }
        if count >= 4, word.hasSuffix("es") {
            let base = String(letters.dropLast(2))
            if ["s", "x", "z", "ch", "sh"].contains(where: { base.hasSuffix($0) }) { return base }
        }
        if count >= 3, word.hasSuffix("s"), !["ss", "us", "is"].contains(where: { word.hasSuffix($0) }),
           letters[count - 2].isLetter {
            return String(letters.dropLast())
        }
        return word
    }

    /// The regular plural of a stem (`candy` → `candies`, `box` → `boxes`,
    /// `mug` → `mugs`).
    static func plural(_ stem: String) -> String {
        let letters = Array(stem)
        if stem.hasSuffix("y"), letters.count >= 2, isConsonant(letters[letters.count - 2]) {
            return String(letters.dropLast()) + "ies"
        }
        if ["s", "x", "z", "ch", "sh"].contains(where: { stem.hasSuffix($0) }) { return stem + "es" }
        return stem + "s"
    }

    /// The forms a whole query word matches: itself, its stem and its
    /// stem's plural, those of them that have its stem, in that order.
    static func forms(of word: String) -> [String] {
        let stem = stem(word)
        var forms = [word]
        for form in [stem, plural(stem)] where !forms.contains(form) && Self.stem(form) == stem {
            forms.append(form)
        }
        return forms
    }

    /// The prefixes a last, search-as-you-type word matches, and the whole
    /// words beside them: its stem as a prefix (which covers the word
    /// itself and its plural, except a `…y` stem's `…ies`), the word as a
    /// prefix when the stem does not begin it (`candies` → `candy`), and
    /// a `…y` stem's plural as a whole word when no prefix covers it.
    static func prefixForms(of word: String) -> (prefixes: [String], words: [String]) {
        let stem = stem(word)
        var prefixes = [stem]
        if !word.hasPrefix(stem) { prefixes.append(word) }
        let plural = plural(stem)
        let covered = prefixes.contains { plural.hasPrefix($0) }
        return (prefixes, !covered && Self.stem(plural) == stem ? [plural] : [])
    }

    private static func isConsonant(_ letter: Character) -> Bool {
        letter.isLetter && !"aeiou".contains(letter)
    }
}
