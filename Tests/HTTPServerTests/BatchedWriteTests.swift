import Dispatch
import Glibc
import Synchronization
import Testing
@testable import HTTPServer
import TestSupport

/// Responses the loop makes while working through one batch of ready
/// sockets leave when the batch ends, not one by one: a client's request
/// is answered before any response of its batch reaches its client.
@Suite struct BatchedWriteTests {
    /// What the probe handlers saw, and the hold that keeps the one loop
    /// busy while the probes' requests arrive.
    final class Probe: Sendable {
        let clientFDs = Mutex<[String: Int32]>([:])
        let sawAnotherResponse = Mutex<[String: Bool]>([:])
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)

        /// Whether a response is waiting on any probe client's socket but `name`'s.
        func anotherResponseArrived(besides name: String) -> Bool {
            let others = clientFDs.withLock { $0.filter { $0.key != name }.map(\.value) }
            return others.contains { fd in
                var byte: UInt8 = 0
                return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
            }
        }

        var router: Router {
            var router = Router()
            router.get("/health") { _ in .json(.ok, #"{"status":"ok"}"#) }
            // Blocks the loop's thread (the handler runs there until it
            // suspends, and this one never does) until the test releases
            // it, or 30 s at most, so a failing test cannot hang the loop.
            router.get("/hold") { [self] _ in
                held.signal()
                _ = release.wait(timeout: .now() + 30)
                return .json(.ok, "{}")
            }
            router.get("/probe/{name}") { [self] request in
                let name = request.parameters["name"] ?? ""
                let seen = anotherResponseArrived(besides: name)
                sawAnotherResponse.withLock { $0[name] = seen }
                return .json(.ok, "{}")
            }
            return router
        }
    }

    @Test func aBatchsResponsesLeaveAfterEveryRequestOfItIsAnswered() async throws {
        let probe = Probe()
        var configuration = HTTPServerConfiguration()
        configuration.eventLoops = 1
        try await TestServer.with(configuration: configuration, router: probe.router) { server in
            let statuses = try await onOwnThread { Result { () throws -> [Int] in
                let first = try server.client(), second = try server.client(), holder = try server.client()
                // Registered on the loop before it is held.
                for client in [first, second, holder] {
                    try client.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
                    _ = try client.readResponse()
                }
                probe.clientFDs.withLock { $0 = ["first": first.fd, "second": second.fd] }
                try holder.send("GET /hold HTTP/1.1\r\nHost: t\r\n\r\n")
                guard probe.held.wait(timeout: .now() + 30) == .success else { throw RawClient.ClientError.timedOut }
                // Both arrive while the loop is held: its next epoll_wait
                // reports them together.
                let sent = Result {
                    try first.send("GET /probe/first HTTP/1.1\r\nHost: t\r\n\r\n")
                    try second.send("GET /probe/second HTTP/1.1\r\nHost: t\r\n\r\n")
                }
                probe.release.signal()
                try sent.get()
                return try [holder, first, second].map { try $0.readResponse().status }
            } }.get()
            #expect(statuses == [200, 200, 200])
        }
        #expect(probe.sawAnotherResponse.withLock { $0 } == ["first": false, "second": false])
    }
}
