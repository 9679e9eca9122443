import HTTPServer

/// `GET /metrics`: the Prometheus text exposition format (version 0.0.4).
/// What is measured is gathered by the composition root, which sees every
/// layer; this only serves it.
public enum MetricsRoutes {
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// `token`, when given, must be presented as `Authorization: Bearer`.
    public static func register(on router: inout Router, token: OperationsToken? = nil,
                                exposition: @escaping @Sendable () async -> String) {
        router.get("/metrics", policy: .probe) { request in
            try token?.check(request)
            let text = await exposition()
            return HTTPResponse(status: .ok, headers: ["Content-Type": contentType, "Cache-Control": "no-store"],
                                body: .bytes(Array(text.utf8)))
        }
    }
}
