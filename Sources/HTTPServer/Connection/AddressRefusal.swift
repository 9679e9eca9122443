import Glibc

/// Answers a connection over its address's cap on the accept queue itself:
/// one write of the 503 and a close, with no connection object, queue or
/// Dispatch source. Refused clients reconnect at once, and the full
/// connection path (queue, sources, lingering close) for each refusal would
/// slow every other client's requests (docs/http-engine.md, "Figures behind
/// the code").
enum AddressRefusal {
    static func answer(fd: Int32, core: ServerCore) {
        let requestID = core.requestIDs.id(from: nil)
        let error = HTTPError(.serviceUnavailable, code: "too_many_connections",
                              detail: "Your address has too many open connections; close some or retry shortly.",
                              headers: ["Retry-After": "1"])
        var output = OutputQueue()
        ResponseHead.encodeComplete(ProblemDetails.response(for: error, requestID: requestID), version: .http1_1,
                                    requestID: requestID, keepAlive: false, isHead: false, into: &output)
        // A fresh socket's send buffer takes the whole answer; if not, the
        // client gets a reset, which a refusal may.
        _ = output.flush(to: fd)
        close(fd)
    }
}
