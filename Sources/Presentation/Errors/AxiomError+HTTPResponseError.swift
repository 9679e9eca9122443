import Axiom
import HTTPServer

/// Storage that cannot take writes is 503 `storage_unavailable` with
/// `Retry-After`: nothing was applied, so a retry is safe. Every other
/// runtime error is the server's fault (a 500, logged).
extension AxiomError: HTTPResponseError {
    public var httpError: HTTPError? {
        guard case .capabilityUnavailable = self else { return nil }
        return HTTPError(.serviceUnavailable, code: "storage_unavailable",
                         detail: "Storage cannot take writes right now; nothing was changed. Retry shortly.",
                         headers: ["Retry-After": "5"])
    }
}
