import HTTPServer

/// `GET /ready`: whether this instance should get traffic. Ready means
/// start-up finished (migrations applied, checkouts reconciled), every
/// capability reports itself available, and shutdown has not begun;
/// otherwise 503 with the reasons. Cheap: reads cached flags, probes nothing.
public enum ReadinessRoutes {
    public struct Readiness: Sendable {
        public var capabilities: [(name: String, isAvailable: Bool)]
        public var shuttingDown: Bool

        public init(capabilities: [(name: String, isAvailable: Bool)], shuttingDown: Bool) {
            self.capabilities = capabilities
            self.shuttingDown = shuttingDown
        }

        public var reasons: [String] {
            var reasons = capabilities.filter { !$0.isAvailable }.map { "capability \($0.name) is unavailable" }
            if shuttingDown { reasons.append("the server is shutting down") }
            return reasons
        }
    }

    public static func register(on router: inout Router, readiness: @escaping @Sendable () -> Readiness) {
        router.get("/ready", policy: .probe) { _ in
            let state = readiness()
            let reasons = state.reasons
            var body = reasons.isEmpty ? #"{"status":"ready","#
                                       : #"{"status":"not_ready","code":"not_ready","reasons":["#
            if !reasons.isEmpty {
                body += reasons.map(JSONString.quoted).joined(separator: ",") + "],"
            }
            body += #""capabilities":{"#
            body += state.capabilities.map { "\(JSONString.quoted($0.name)):\($0.isAvailable ? #""available""# : #""unavailable""#)" }
                .joined(separator: ",")
            body += #"},"shutting_down":\#(state.shuttingDown)}"#
            var headers = HTTPFields()
            headers.set("Cache-Control", "no-store")
            if !reasons.isEmpty { headers.set("Retry-After", "5") }
            return .json(reasons.isEmpty ? .ok : .serviceUnavailable, body, headers: headers)
        }
    }
}
