import HTTPServer

/// What a newcomer with only curl finds: `GET /` names the service and links
/// to everything else, and `GET /openapi.yaml` serves the API document the
/// binary was built with (embedded, so a container needs no extra files).
public enum DiscoveryRoutes {
    public static let serviceName = "axiom-server"
    public static let version = "0.5.0"

    private static let index: [UInt8] = Array("""
        {"service":"\(serviceName)","version":"\(version)",\
        "description":"Users, sessions, a product catalogue, carts and orders as a JSON REST API.",\
        "links":{"openapi":"/openapi.yaml","health":"/health","ready":"/ready","metrics":"/metrics",\
        "products":"/products","register":"/users","sign_in":"/sessions","cart":"/cart","orders":"/orders",\
        "events":"/events","components":"/axiom/components"}}
        """.utf8)
    /// The literal drops the file's final newline; put it back.
    private static let document: [UInt8] = Array((OpenAPIDocument.yaml + "\n").utf8)

    public static func register(on router: inout Router) {
        router.get("/") { _ in .json(.ok, index) }
        router.get("/openapi.yaml") { _ in
            HTTPResponse(status: .ok, headers: ["Content-Type": "application/yaml; charset=utf-8"], body: .bytes(document))
        }
    }
}
