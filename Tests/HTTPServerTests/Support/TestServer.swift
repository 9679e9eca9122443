@testable import HTTPServer
import TestSupport

/// A real server on a kernel-chosen loopback port, with a router of test
/// routes, stopped by the test that started it.
struct TestServer {
    let server: HTTPServer
    let port: Int

    static func start(configuration: HTTPServerConfiguration = HTTPServerConfiguration(),
                      router: Router = TestRoutes.router()) throws -> TestServer {
        var configuration = configuration
        configuration.host = "127.0.0.1"
        configuration.port = 0
        let server = HTTPServer(configuration: configuration, router: router, logger: .disabled)
        return TestServer(server: server, port: try server.start())
    }

    func client(from sourceAddress: String? = nil) throws -> RawClient {
        try RawClient(port: port, sourceAddress: sourceAddress)
    }

    func stop() async { await server.shutdown() }

    /// Runs `body` against a fresh server and always shuts it down.
    static func with(configuration: HTTPServerConfiguration = HTTPServerConfiguration(),
                     router: Router = TestRoutes.router(),
                     _ body: (TestServer) async throws -> Void) async throws {
        let server = try start(configuration: configuration, router: router)
        do {
            try await body(server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// `with`, for a test that needs one client of the server and not the
    /// server itself.
    static func withClient(configuration: HTTPServerConfiguration = HTTPServerConfiguration(),
                           router: Router = TestRoutes.router(),
                           _ body: (RawClient) async throws -> Void) async throws {
        try await with(configuration: configuration, router: router) { server in try await body(try server.client()) }
    }
}

/// Routes the protocol tests drive: they echo what the server parsed, so a
/// test can check the parse from the outside.
enum TestRoutes {
    struct Boom: Error {}

    static func router() -> Router {
        var router = Router()
        router.get("/health") { _ in .json(.ok, #"{"status":"ok"}"#) }
        router.get("/echo/{name}") { request in
            .json(.ok, #"{"name":\#(JSONString.encode(request.parameters["name"] ?? "")),"path":\#(JSONString.encode(request.path)),"q":\#(JSONString.encode(request.query["q"] ?? ""))}"#)
        }
        router.post("/echo") { request in
            var headers = HTTPFields()
            headers.append("X-Body-Length", String(request.body.count))
            if let trailer = request.trailers["x-checksum"] { headers.append("X-Trailer", trailer) }
            return HTTPResponse(status: .ok, headers: headers, body: .bytes(request.body))
        }
        router.on(.delete, "/items/{id}") { _ in HTTPResponse(status: .noContent) }
        router.get("/items/{id}") { request in .json(.ok, #"{"id":\#(JSONString.encode(request.parameters["id"] ?? ""))}"#) }
        router.get("/slow") { request in
            let milliseconds = Int(request.query["ms"] ?? "300") ?? 300
            try await Task.sleep(for: .milliseconds(milliseconds))
            return .json(.ok, #"{"slept_ms":\#(milliseconds)}"#)
        }
        router.get("/boom") { _ in throw Boom() }
        router.get("/teapot") { _ in
            throw HTTPError(HTTPStatus(code: 418, reasonPhrase: "I'm a teapot"), code: "teapot", detail: "Short and stout.")
        }
        router.get("/stream") { request in
            let count = Int(request.query["n"] ?? "3") ?? 3
            return HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain"], body: .stream { writer in
                for index in 0..<count { try await writer.write("part \(index)\n") }
            })
        }
        return router
    }
}
