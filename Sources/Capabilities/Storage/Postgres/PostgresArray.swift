/// PostgreSQL's text form of a one-dimensional `text[]`, bound as one
/// parameter so a statement over a list keeps one prepared form whatever
/// the list's length.
enum PostgresArray {
    static func literal(_ elements: [String?]) -> String {
        var text = "{"
        for (index, element) in elements.enumerated() {
            if index > 0 { text += "," }
            guard let element else {
                text += "NULL"
                continue
            }
            text += "\""
            for character in element {
                if character == "\"" || character == "\\" { text += "\\" }
                text.append(character)
            }
            text += "\""
        }
        return text + "}"
    }

    static func literal(_ elements: [String]) -> String {
        literal(elements.map(Optional.some))
    }
}
