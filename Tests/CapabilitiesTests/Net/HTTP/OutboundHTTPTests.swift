import Foundation
import Testing
@testable import Capabilities
import TestSupport

/// The outbound HTTP client against a real server
/// (`scripts/http_test_server.py`): plain and TLS, keep-alive, the answers
/// a webhook receiver gives, and the ways a server misbehaves. Serialized:
/// starting a test server holds a thread of the concurrency pool while it
/// waits for the server, and the timeout test needs the pool free to see
/// its connection made in time.
@Suite(.serialized) struct OutboundHTTPTests {
    @Test func sendsItsFieldsAndBodyAndReusesTheConnection() async throws {
        let server = try HTTPTestServer()
        let client = try OutboundHTTP(settings: .local())
        defer { client.close() }
        let url = try server.url("/ok")
        let request = OutboundHTTPRequest(url: url, headers: [("Content-Type", "application/json"), ("webhook-id", "msg_1"),
                                                              ("Host", "elsewhere.example"), ("Connection", "close")],
                                          body: Array(#"{"a":1}"#.utf8))
        let first = try await client.send(request)
        #expect(first.status == 200)
        #expect(first.header("CONTENT-TYPE") == "application/json")
        #expect(!first.reusedConnection && !first.bodyTruncated)
        let echo = try Echo(first)
        #expect(echo.method == "POST" && echo.target == "/ok" && echo.body == #"{"a":1}"#)
        #expect(echo.headers["host"] == "127.0.0.1:\(server.httpPort)")
        #expect(echo.headers["user-agent"] == "axiom-server")
        #expect(echo.headers["content-length"] == "7")
        #expect(echo.headers["webhook-id"] == "msg_1")
        #expect(echo.headers["connection"] == nil)

        let second = try await client.send(request)
        #expect(second.reusedConnection)
        let again = try Echo(second)
        #expect(again.connection == echo.connection && again.request == 2)
        #expect(try server.connections() == 1)
    }

    @Test func concurrentSendsEachGetTheirOwnAnswer() async throws {
        let server = try HTTPTestServer()
        let client = try OutboundHTTP(settings: .local())
        defer { client.close() }
        let url = try server.url("/ok")
        let bodies = try await withThrowingTaskGroup(of: (String, Echo).self) { group in
            for index in 0..<12 {
                group.addTask {
                    let body = "request \(index)"
                    return (body, try Echo(try await client.send(OutboundHTTPRequest(url: url, body: Array(body.utf8)))))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(bodies.count == 12)
        for (sent, echo) in bodies { #expect(echo.body == sent) }
        // Each connection answered its requests one after the other.
        let perConnection = Dictionary(grouping: bodies.map(\.1), by: \.connection)
        for (_, echoes) in perConnection { #expect(Set(echoes.map(\.request)).count == echoes.count) }
    }

    @Test func httpsIsVerifiedAgainstTheCAFileForANameAndForAnAddress() async throws {
        let server = try HTTPTestServer()
        let client = try OutboundHTTP(settings: .local(caFile: server.caFile))
        defer { client.close() }
        for host in ["localhost", "127.0.0.1"] {
            let response = try await client.send(OutboundHTTPRequest(url: try server.url("/ok", host: host, tls: true)))
            #expect(response.status == 200)
            #expect(try Echo(response).headers["host"] == "\(host):\(server.httpsPort)")
        }
    }

    @Test func aCertificateFromAnotherCAIsRefused() async throws {
        let server = try HTTPTestServer()
        let client = try OutboundHTTP(settings: .local(caFile: server.otherCAFile))
        defer { client.close() }
        let error = await #expect(throws: OutboundHTTPError.self) {
            _ = try await client.send(OutboundHTTPRequest(url: try server.url("/ok", tls: true)))
        }
        guard case .tls(let reason) = error else {
            Issue.record("not a TLS refusal: \(String(describing: error))")
            return
        }
        #expect(reason.contains("certificate refused"))
        #expect(try server.requests(to: "/ok") == 0)
    }

    @Test func theWholeRequestIsBoundedByItsTimeout() async throws {
        let server = try HTTPTestServer()
        var settings = OutboundHTTPSettings.local()
        settings.timeout = .seconds(1)
        let client = try OutboundHTTP(settings: settings)
        defer { client.close() }
        await #expect(throws: OutboundHTTPError.timedOut("waiting for the response")) {
            _ = try await client.send(OutboundHTTPRequest(url: try server.url("/slow?ms=5000")))
        }
        // The connection the slow answer was due on is not reused.
        let next = try await client.send(OutboundHTTPRequest(url: try server.url("/ok")))
        #expect(!next.reusedConnection)
    }

    @Test func aLongBodyIsCutAtTheCapAndItsConnectionClosed() async throws {
        let server = try HTTPTestServer()
        var settings = OutboundHTTPSettings.local()
        settings.maxResponseBytes = 1000
        let client = try OutboundHTTP(settings: settings)
        defer { client.close() }
        let long = try await client.send(OutboundHTTPRequest(url: try server.url("/huge?bytes=200000")))
        #expect(long.status == 200 && long.bodyTruncated)
        #expect(long.body == Array(repeating: UInt8(ascii: "x"), count: 1000))
        let fits = try await client.send(OutboundHTTPRequest(url: try server.url("/huge?bytes=1000")))
        #expect(!fits.bodyTruncated && fits.body.count == 1000 && !fits.reusedConnection)
        #expect(try server.connections() == 2)
    }

    @Test func aKeptConnectionTheServerDroppedIsRetriedOnceOnANewOne() async throws {
        let server = try HTTPTestServer()
        let client = try OutboundHTTP(settings: .local())
        defer { client.close() }
        let url = try server.url("/drop-when-reused")
        let first = try await client.send(OutboundHTTPRequest(url: url))
        #expect(first.status == 200)
        let second = try await client.send(OutboundHTTPRequest(url: url))
        #expect(second.status == 200 && second.body == Array("first".utf8))
        #expect(!second.reusedConnection)
        // The first, the one dropped on the kept connection, the retry.
        #expect(try server.requests(to: "/drop-when-reused") == 3)
        #expect(try server.connections() == 2)
    }

    @Test func aResetOnANewConnectionIsNotRetried() async throws {
        let server = try HTTPTestServer()
        let client = try OutboundHTTP(settings: .local())
        defer { client.close() }
        let error = await #expect(throws: OutboundHTTPError.self) {
            _ = try await client.send(OutboundHTTPRequest(url: try server.url("/reset")))
        }
        guard case .connectionClosed = error else {
            Issue.record("not a closed connection: \(String(describing: error))")
            return
        }
        #expect(try server.requests(to: "/reset") == 1)
    }

    @Test func aRedirectIsAnAnswerNotFollowed() async throws {
        let server = try HTTPTestServer()
        let client = try OutboundHTTP(settings: .local())
        defer { client.close() }
        let response = try await client.send(OutboundHTTPRequest(url: try server.url("/redirect")))
        #expect(response.status == 302 && response.header("location") == "/ok")
        #expect(try server.requests(to: "/ok") == 0)
    }

    @Test func theAnswersAReceiverGives() async throws {
        let server = try HTTPTestServer()
        let client = try OutboundHTTP(settings: .local())
        defer { client.close() }
        func send(_ path: String) async throws -> OutboundHTTPResponse {
            try await client.send(OutboundHTTPRequest(url: try server.url(path)))
        }
        let noContent = try await send("/no-content")
        #expect(noContent.status == 204 && noContent.body.isEmpty)
        let gone = try await send("/gone")
        #expect(gone.status == 410 && gone.body == Array("gone".utf8) && gone.reusedConnection)
        let throttled = try await send("/throttled")
        #expect(throttled.status == 429 && throttled.header("Retry-After") == "7")
        let chunked = try await send("/chunked")
        #expect(chunked.status == 200 && chunked.body == Array("hello, chunked world".utf8))
        let interim = try await send("/interim")
        #expect(interim.status == 200 && interim.body == Array("final".utf8))
        #expect(try server.connections() == 1)
        // Each of these ends its connection.
        let closing = try await send("/close")
        #expect(closing.body == Array("bye".utf8) && closing.reusedConnection)
        let untilClose = try await send("/until-close")
        #expect(untilClose.body == Array("until the end".utf8) && !untilClose.reusedConnection)
        let last = try await send("/ok")
        #expect(!last.reusedConnection)
        #expect(try server.connections() == 3)
    }

    @Test func aResponseThatIsNotHTTPIsMalformed() async throws {
        let server = try HTTPTestServer()
        let client = try OutboundHTTP(settings: .local())
        defer { client.close() }
        await #expect(throws: OutboundHTTPError.malformedResponse("The status line is not 'HTTP/1.x NNN reason'.")) {
            _ = try await client.send(OutboundHTTPRequest(url: try server.url("/garbage")))
        }
    }

    @Test func anIdleConnectionPastItsTimeoutIsNotReused() async throws {
        let server = try HTTPTestServer()
        var settings = OutboundHTTPSettings.local()
        settings.idleTimeout = .milliseconds(50)
        let client = try OutboundHTTP(settings: settings)
        defer { client.close() }
        _ = try await client.send(OutboundHTTPRequest(url: try server.url("/ok")))
        try await Task.sleep(for: .milliseconds(200))
        let later = try await client.send(OutboundHTTPRequest(url: try server.url("/ok")))
        #expect(!later.reusedConnection)
        #expect(try server.connections() == 2)
    }

    @Test func privateAddressesAreRefusedUnlessAllowed() async throws {
        let server = try HTTPTestServer()
        let strict = try OutboundHTTP(settings: OutboundHTTPSettings())
        defer { strict.close() }
        await #expect(throws: OutboundHTTPError.addressRefused(host: "127.0.0.1", addresses: ["127.0.0.1"])) {
            _ = try await strict.send(OutboundHTTPRequest(url: try server.url("/ok")))
        }
        let error = await #expect(throws: OutboundHTTPError.self) {
            _ = try await strict.send(OutboundHTTPRequest(url: try server.url("/ok", host: "localhost")))
        }
        guard case .addressRefused(let host, let addresses) = error else {
            Issue.record("not refused: \(String(describing: error))")
            return
        }
        #expect(host == "localhost" && addresses.contains("127.0.0.1"))
        #expect(try server.connections() == 0)

        let lenient = try OutboundHTTP(settings: .local())
        defer { lenient.close() }
        #expect(try await lenient.send(OutboundHTTPRequest(url: try server.url("/ok", host: "localhost"))).status == 200)
    }

    @Test func checkJudgesEveryAddressOfANameOrALiteral() async throws {
        let strict = try OutboundHTTP(settings: OutboundHTTPSettings())
        let lenient = try OutboundHTTP(settings: .local())
        await #expect(throws: OutboundHTTPError.addressRefused(host: "127.0.0.1", addresses: ["127.0.0.1"])) {
            try await strict.check(try OutboundURL(parsing: "https://127.0.0.1/hook"))
        }
        await #expect(throws: OutboundHTTPError.addressRefused(host: "169.254.169.254", addresses: ["169.254.169.254"])) {
            try await strict.check(try OutboundURL(parsing: "http://169.254.169.254/latest/meta-data"))
        }
        await #expect(throws: OutboundHTTPError.addressRefused(host: "fd00:ec2::254", addresses: ["fd00:ec2::254"])) {
            try await strict.check(try OutboundURL(parsing: "http://[fd00:ec2::254]/"))
        }
        let error = await #expect(throws: OutboundHTTPError.self) {
            try await strict.check(try OutboundURL(parsing: "https://localhost/hook"))
        }
        guard case .addressRefused("localhost", let addresses)? = error else {
            Issue.record("not refused: \(String(describing: error))")
            return
        }
        #expect(addresses.contains("127.0.0.1"))
        try await strict.check(try OutboundURL(parsing: "https://8.8.8.8/hook"))
        try await strict.check(try OutboundURL(parsing: "https://[2606:4700:4700::1111]/hook"))
        try await lenient.check(try OutboundURL(parsing: "https://127.0.0.1/hook"))
        try await lenient.check(try OutboundURL(parsing: "https://localhost/hook"))
        await #expect(throws: OutboundHTTPError.unresolvable(host: "no-such-host.invalid")) {
            try await lenient.check(try OutboundURL(parsing: "https://no-such-host.invalid/hook"))
        }
    }

    @Test func aFieldThatWouldSplitTheRequestIsRefused() async throws {
        let server = try HTTPTestServer()
        let client = try OutboundHTTP(settings: .local())
        defer { client.close() }
        let url = try server.url("/ok")
        await #expect(throws: OutboundHTTPError.invalidRequest("the value of 'X-Note' holds a control character")) {
            _ = try await client.send(OutboundHTTPRequest(url: url, headers: [("X-Note", "a\r\nX-Injected: 1")]))
        }
        await #expect(throws: OutboundHTTPError.invalidRequest("the header name 'X Note' is not a token")) {
            _ = try await client.send(OutboundHTTPRequest(url: url, headers: [("X Note", "a")]))
        }
        await #expect(throws: OutboundHTTPError.invalidRequest("the method 'GET /x' is not a token")) {
            _ = try await client.send(OutboundHTTPRequest(url: url, method: "GET /x"))
        }
        #expect(try server.connections() == 0)
    }
}

extension OutboundHTTPSettings {
    /// The test server lives on 127.0.0.1: private addresses allowed.
    static func local(caFile: String? = nil) -> OutboundHTTPSettings {
        OutboundHTTPSettings(caFile: caFile, addressPolicy: AddressPolicy(allowsPrivate: true))
    }
}

extension HTTPTestServer {
    func url(_ target: String, host: String = "127.0.0.1", tls: Bool = false) throws -> OutboundURL {
        try OutboundURL(parsing: "\(tls ? "https" : "http")://\(host):\(tls ? httpsPort : httpPort)\(target)")
    }
}

/// The test server's `/ok` echo of a request.
struct Echo {
    let connection: Int
    let request: Int
    let method: String
    let target: String
    let headers: [String: String]
    let body: String

    init(_ response: OutboundHTTPResponse) throws {
        let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
        connection = object["connection"] as? Int ?? -1
        request = object["request"] as? Int ?? -1
        method = object["method"] as? String ?? ""
        target = object["target"] as? String ?? ""
        headers = object["headers"] as? [String: String] ?? [:]
        body = object["body"] as? String ?? ""
    }
}
