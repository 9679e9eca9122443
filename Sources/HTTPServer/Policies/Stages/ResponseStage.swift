/// One step every response takes on its way out, after its handler (as NIO
/// composes its handlers, each with one concern): a stage reads what the
/// server decided when the request's head arrived (`ExchangeTerms`) and
/// changes the response, or the fields the head writes. `ExchangePolicies`
/// lists the stages in order, once, from the configuration.
protocol ResponseStage: Sendable {
    func apply(to exit: inout ResponseExit, terms: ExchangeTerms)
}

/// A response on its way through the stages.
struct ResponseExit {
    var response: HTTPResponse
    /// What the head writes after the handler's own fields.
    var fields: ExchangeFields
    /// Request fields the chosen representation depends on, for `Vary`.
    var vary: [String] = []
    /// Whether the body goes out gzip-coded; a 304 withdraws it.
    var gzip = false
}
