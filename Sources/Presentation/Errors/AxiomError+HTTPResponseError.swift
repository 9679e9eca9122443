import Axiom
import HTTPServer

/// Storage that cannot take writes is 503 `storage_unavailable` with
/// `Retry-After`: nothing was applied, so a retry is safe. A write whose
/// commit was cut off and could not be confirmed either way is 503
/// `write_outcome_unknown`: it may have been applied. Every other runtime
/// error is the server's fault (a 500, logged).
extension AxiomError: HTTPResponseError {
    public var httpError: HTTPError? {
        switch self {
        case .capabilityUnavailable:
            HTTPError(.serviceUnavailable, code: "storage_unavailable",
                      detail: "Storage cannot take writes right now; nothing was changed. Retry shortly.",
                      headers: ["Retry-After": "5"])
        case .capabilityOutcomeUnknown:
            HTTPError(.serviceUnavailable, code: "write_outcome_unknown",
                      detail: "The database connection broke while this write was committing and the outcome "
                          + "could not be confirmed: it may have been applied. Read it back, or retry with the "
                          + "same Idempotency-Key.",
                      headers: ["Retry-After": "5"])
        default:
            nil
        }
    }
}
