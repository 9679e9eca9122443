import Axiom
import HTTPServer

/// Storage that cannot take writes is 503 `storage_unavailable` with
/// `Retry-After`: nothing was applied, so a retry is safe. A write whose
/// commit was cut off and could not be confirmed either way is 503
/// `write_outcome_unknown`: it may have been applied. Every session slot
/// busy, a session ended while its request was starting, and a request
/// that arrives while the server shuts down are conditions of load or
/// timing, not faults: 503 with `Retry-After` (the retry finds a slot, a
/// fresh session, or another replica). Every other runtime error is a
/// wiring fault of the server (a 500, logged), listed by name so that a new
/// case has to be given its answer here.
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
        case .sessionCapacityExhausted:
            HTTPError(.serviceUnavailable, code: "sessions_exhausted",
                      detail: "Every session slot of this server is busy; nothing was changed. Retry shortly.",
                      headers: ["Retry-After": "1"])
        case .sessionEnded:
            HTTPError(.serviceUnavailable, code: "session_ended",
                      detail: "The session ended while this request was starting; nothing was changed. Retry.",
                      headers: ["Retry-After": "1"])
        case .orchestratorShutDown:
            HTTPError(.serviceUnavailable, code: "shutting_down",
                      detail: "The server is shutting down; nothing was changed. Retry shortly.",
                      headers: ["Retry-After": "1"])
        case .capabilityNotRegistered, .capabilityAlreadyRegistered, .undeclaredDependency, .clientNotRegistered,
             .clientAlreadyRegistered, .clientActivationFailed, .presentationAlreadyBound, .orchestratorAlreadyRunning,
             .orchestratorAlreadyStarted, .orchestratorNotStarted, .contextCreationOutsideFactory, .contextNotFound,
             .contextCycle, .undeclaredDownstream, .constraintViolations:
            nil
        }
    }
}
