@testable import HTTPServer

/// Routes for the policy tests: a body above the compression threshold,
/// a small one, a stream, a problem, with policies attached like the
/// composition root does.
enum PolicyRoutes {
    /// 4 KiB of JSON that compresses well.
    static let bigBody: [UInt8] = Array(("[" + (0..<200).map { "{\"id\":\($0),\"name\":\"item\"}" }.joined(separator: ",") + "]").utf8)

    static func router() -> Router {
        var router = Router()
        router.get("/big") { _ in .json(.ok, bigBody) }
        router.get("/small") { _ in .json(.ok, #"{"id":1}"#) }
        router.post("/things") { _ in .json(.created, #"{"id":2}"#) }
        router.get("/versioned") { _ in
            .json(.ok, #"{"id":3}"#, headers: ["ETag": EntityTag.strong("v7")])
        }
        router.get("/events") { _ in
            HTTPResponse(status: .ok, headers: ["Content-Type": "text/event-stream"], body: .stream { writer in
                try await writer.write(Array(String(repeating: "data: x\n\n", count: 300).utf8))
            })
        }
        router.get("/missing") { _ in throw HTTPError(.notFound, code: "not_found", detail: "Nothing here.") }
        router.get("/health") { _ in .json(.ok, #"{"status":"ok"}"#) }
        router.attach(RoutePolicy(entityTag: true, cacheControl: "no-cache"), to: .get, "/big")
        router.attach(RoutePolicy(entityTag: true, cacheControl: "no-store"), to: .get, "/small")
        router.attach(RoutePolicy(entityTag: true), to: .get, "/versioned")
        router.attach(RoutePolicy(rateLimited: false), to: .get, "/health")
        return router
    }
}
