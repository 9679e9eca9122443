/// With a CORS list every response varies on `Origin`, and one to an
/// origin on the list carries the fields that let its page read it.
struct CORSFields: ResponseStage {
    func apply(to exit: inout ResponseExit, terms: ExchangeTerms) {
        exit.vary.append("Origin")
        if let origin = terms.origin { CORSPolicy.decorate(&exit.response.headers, origin: origin) }
    }
}
