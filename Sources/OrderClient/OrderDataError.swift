/// A stored order row that does not decode (a bug or a foreign write):
/// reported as the server's 500, never guessed at.
struct OrderDataError: Error, CustomStringConvertible {
    let description: String
}
