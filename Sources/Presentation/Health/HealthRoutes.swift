import HTTPServer

/// Liveness: always cheap, touches nothing but the process itself.
public enum HealthRoutes {
    private static let body: [UInt8] = Array(#"{"status":"ok"}"#.utf8)

    public static func register(on router: inout Router) {
        router.get("/health", policy: .probe) { _ in .json(.ok, body) }
    }
}
