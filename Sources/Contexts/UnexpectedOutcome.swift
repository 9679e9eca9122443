/// A client answered an action with an outcome of another kind: a
/// programming error between a context and its client, surfaced as a 500
/// rather than a crash.
struct UnexpectedOutcome: Error, CustomStringConvertible {
    var description: String { "a client answered with an outcome of the wrong kind" }
}
