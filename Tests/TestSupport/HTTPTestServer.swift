import Foundation

/// `scripts/http_test_server.py` run for one test: a plain and a TLS port
/// on 127.0.0.1, the CA its certificate comes from, an unrelated CA, and
/// what it counted (connections accepted, requests per path).
public final class HTTPTestServer: @unchecked Sendable {
    public let directory: URL
    public let httpPort: UInt16
    public let httpsPort: UInt16
    /// PEM of the CA that issued the server's certificate (for localhost,
    /// 127.0.0.1 and ::1).
    public let caFile: String
    /// PEM of a CA that issued nothing the server shows.
    public let otherCAFile: String
    private let server: PythonServer

    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        server = try PythonServer(script: PythonServer.script("http_test_server.py"),
                                  arguments: ["--dir", directory.path, "--lifetime", "300"],
                                  logPath: directory.appendingPathComponent("server.log").path)
        let ready = try server.readyObject()
        httpPort = UInt16(ready["http_port"] as? Int ?? 0)
        httpsPort = UInt16(ready["https_port"] as? Int ?? 0)
        caFile = ready["ca"] as? String ?? ""
        otherCAFile = ready["other_ca"] as? String ?? ""
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    public func stop() { server.stop() }

    /// Connections accepted so far (TLS ones once their handshake passed).
    public func connections() throws -> Int { try stats()["connections"] as? Int ?? 0 }

    /// Requests read so far for `path`.
    public func requests(to path: String) throws -> Int {
        (try stats()["paths"] as? [String: Int])?[path] ?? 0
    }

    private func stats() throws -> [String: Any] {
        guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent("stats.json").path) else {
            return [:]
        }
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }
}
