/// A problem document names the exchange's trace (`trace_id`), so a report
/// of an error can be found in the traces.
struct ProblemTraceID: ResponseStage {
    func apply(to exit: inout ResponseExit, terms: ExchangeTerms) {
        guard exit.response.status.code >= 400,
              exit.response.headers["content-type"]?.hasPrefix(ProblemDetails.contentType) == true else { return }
        exit.response.body = ProblemDetails.addingTraceID(terms.trace.traceID, to: exit.response.body)
    }
}
