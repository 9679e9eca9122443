import FoundationEssentials

/// Header field text as RFC 5322 and RFC 2047 want it: words folded onto
/// lines of at most 78 octets where the words allow, non-ASCII text (and
/// words too long to fold) as UTF-8 encoded-words, names quoted where
/// they hold specials. Line breaks in the caller's text become spaces, so
/// no value can start a header field of its own.
enum HeaderText {
    static let foldWidth = 78
    /// An encoded-word is at most 75 characters (RFC 2047 section 2):
    /// `=?UTF-8?B?` + 52 base64 characters (39 octets) + `?=` is 64, so
    /// one fits beside the longest field name used here (`Reply-To: `).
    private static let encodedWordOctets = 39

    /// `Name: token token…` folded before a token that would pass 78
    /// octets, each line but the first starting with a space.
    static func field(_ name: String, _ tokens: [String]) -> String {
        var text = name + ":"
        var lineLength = text.utf8.count
        for token in tokens {
            let width = token.utf8.count
            if lineLength + 1 + width > foldWidth, lineLength > name.utf8.count + 1 {
                text += "\r\n " + token
                lineLength = 1 + width
            } else {
                text += " " + token
                lineLength += 1 + width
            }
        }
        return text + "\r\n"
    }

    /// Unstructured text (Subject): its words, or encoded-words when it is
    /// not plain printable ASCII or has a word too long to fold.
    static func unstructured(_ text: String) -> [String] {
        let words = flattened(text).split(separator: " ").map(String.init)
        if isPrintableASCII(text), words.allSatisfy({ $0.utf8.count <= foldWidth - 12 }), !text.contains("=?") {
            return words
        }
        return encodedWords(flattened(text))
    }

    /// A display name (RFC 5322 `phrase`): a quoted string, or encoded-words.
    static func phrase(_ name: String) -> [String] {
        let name = flattened(name)
        guard isPrintableASCII(name), name.utf8.count <= foldWidth - 10, !name.contains("=?") else {
            return encodedWords(name)
        }
        var quoted = "\""
        for character in name {
            if character == "\\" || character == "\"" { quoted.append("\\") }
            quoted.append(character)
        }
        return [quoted + "\""]
    }

    /// `=?UTF-8?B?…?=` words over the text, each whole characters only.
    /// Decoders drop the space between adjacent encoded-words (section
    /// 6.2), so the text's own spaces travel inside them; a word ends after
    /// a space where one is near, so a lax decoder that keeps the folding
    /// space at worst doubles a space instead of splitting a word.
    static func encodedWords(_ text: String) -> [String] {
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > encodedWordOctets, !chunk.isEmpty {
                let cut = chunk.lastIndex(of: 0x20).map { $0 + 1 } ?? chunk.count
                words.append(encodedWord(Array(chunk[..<cut])))
                chunk.removeSubrange(..<cut)
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append(encodedWord(chunk)) }
        return words
    }

    private static func encodedWord(_ octets: [UInt8]) -> String {
        "=?UTF-8?B?" + Data(octets).base64EncodedString() + "?="
    }

    /// Control characters (CR, LF, tab, …) as spaces, runs of spaces as one.
    private static func flattened(_ text: String) -> String {
        var result = ""
        var lastWasSpace = true
        for scalar in text.unicodeScalars {
            let isSpace = scalar.value < 0x20 || scalar.value == 0x7F || scalar == " "
            if isSpace {
                if !lastWasSpace { result.append(" ") }
            } else {
                result.unicodeScalars.append(scalar)
            }
            lastWasSpace = isSpace
        }
        if result.hasSuffix(" ") { result.removeLast() }
        if result.hasPrefix(" ") { result.removeFirst() }
        return result
    }

    private static func isPrintableASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }
}
