/// What is known of an exchange while it is being answered, for the
/// server's exchange observer.
struct ExchangeInProgress {
    let method: HTTPMethod?
    let route: String
    let headers: HTTPFields
    let requestID: String
    let trace: TraceContext?
    let client: String
    let startedAt: Int64
    var status = HTTPStatus.ok
    var bodyBytes = 0
}
