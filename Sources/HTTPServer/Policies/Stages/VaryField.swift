/// `Vary` lists what the stages before found the representation depends
/// on, after any the handler named.
struct VaryField: ResponseStage {
    func apply(to exit: inout ResponseExit, terms: ExchangeTerms) {
        guard !exit.vary.isEmpty else { return }
        if let existing = exit.response.headers["vary"] { exit.vary.insert(existing, at: 0) }
        exit.response.headers.set("Vary", exit.vary.joined(separator: ", "))
    }
}
