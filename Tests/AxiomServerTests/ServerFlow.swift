import Foundation
import Testing
import TestSupport

/// The opening most server-process tests share: the binary started, the
/// API on its port, and the process stopped when the body ends, however
/// it ends.
extension ServerProcess {
    static func run<T>(arguments: [String] = ["--port", "0"], environment: [String: String] = [:],
                       database: ServerDatabase? = nil,
                       _ body: (ServerProcess, AccountFlowTests.API) throws -> T) throws -> T {
        let server = ServerProcess(arguments: arguments, environment: environment, database: database)
        try server.start()
        defer { server.stop() }
        return try body(server, AccountFlowTests.API(port: server.port))
    }

    static func run<T>(arguments: [String] = ["--port", "0"], environment: [String: String] = [:],
                       database: ServerDatabase? = nil,
                       _ body: (ServerProcess, AccountFlowTests.API) async throws -> T) async throws -> T {
        let server = ServerProcess(arguments: arguments, environment: environment, database: database)
        try server.start()
        defer { server.stop() }
        return try await body(server, AccountFlowTests.API(port: server.port))
    }

    /// A port free right now (the kernel's pick, released again).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw RawClient.ClientError.connectFailed(errno) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// The account and catalogue steps tests take on the way to what they test.
extension AccountFlowTests.API {
    static let adminEmail = "root@example.com"
    static let adminPassword = "a very long secret"

    /// POST /sessions; the token it answers.
    func token(_ email: String, _ password: String) throws -> String {
        let response = try call("POST", "/sessions", json: #"{"email":"\#(email)","password":"\#(password)"}"#)
        return try #require(object(response)["token"] as? String)
    }

    /// The admin of `AccountFlowTests.adminEnvironment`, signed in.
    func adminToken() throws -> String {
        try token(Self.adminEmail, Self.adminPassword)
    }

    /// The user id of the account `token` is signed in to.
    func userID(_ token: String) throws -> String {
        try #require(object(try call("GET", "/users/me", token: token))["id"] as? String)
    }

    /// POST /users (202 expected); the account is not signed in.
    func register(_ name: String, email: String, password: String) throws {
        #expect(try call("POST", "/users", json: #"{"name":"\#(name)","email":"\#(email)","password":"\#(password)"}"#).status == 202)
    }

    /// POST /products as `admin`; the new product's id.
    func product(sku: String, name: String, price: Int, stock: Int, admin: String) throws -> String {
        let body = #"{"sku":"\#(sku)","name":"\#(name)","description":"","price":{"amount":\#(price),"currency":"USD"},"stock":\#(stock)}"#
        return try #require(object(try call("POST", "/products", json: body, token: admin))["id"] as? String)
    }
}
