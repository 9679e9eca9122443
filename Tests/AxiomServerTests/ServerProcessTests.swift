import Foundation
import Testing
import TestSupport
@testable import AxiomServer

/// The real binary, as people run it.
@Suite struct ServerProcessTests {
    @Test func helpListsTheFlags() throws {
        let (status, output) = try ServerProcess(arguments: ["--help"]).runToExit()
        #expect(status == 0)
        #expect(output.contains("--host"))
        #expect(output.contains("--port"))
        #expect(output.contains("AXIOM_PORT"))
    }

    @Test func unknownOptionStopsStartUpNamingIt() throws {
        let (status, output) = try ServerProcess(arguments: ["--colour", "blue"]).runToExit()
        #expect(status == 2)
        #expect(output.contains("unknown option '--colour'"))
    }

    @Test func badPortFromTheEnvironmentStopsStartUp() throws {
        let (status, output) = try ServerProcess(environment: ["AXIOM_PORT": "70000"]).runToExit()
        #expect(status == 2)
        #expect(output.contains("port must be an integer in 0...65535"))
    }

    @Test func servesHealthAndLogsWhereItListens() throws {
        let server = ServerProcess(environment: ["AXIOM_PORT": "0"])
        try server.start()
        defer { server.stop() }
        #expect(server.port > 0)
        let listening = try #require(server.log.first { $0.contains(#""event":"listening""#) })
        #expect(listening.contains(#""host":"127.0.0.1""#))
        let client = try RawClient(port: server.port)
        try client.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.text == #"{"status":"ok"}"#)
        #expect(response.header("Content-Type") == "application/json; charset=utf-8")
    }

    @Test func sigtermLetsTheInFlightRequestFinishThenExitsZero() async throws {
        // Generous request timeouts: on a loaded machine this test's own
        // pauses must never be mistaken for a stalled body (408).
        let server = ServerProcess(arguments: ["--port", "0", "--header-timeout", "120"])
        try server.start()
        defer { server.stop() }
        let idle = try RawClient(port: server.port)
        try idle.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try idle.readResponse().status == 200)
        // A request whose body is still arriving when SIGTERM lands.
        let slow = try RawClient(port: server.port)
        try slow.send("GET /health HTTP/1.1\r\nHost: t\r\nContent-Length: 6\r\n\r\nabc")
        try await Task.sleep(for: .milliseconds(100))
        server.signal(SIGTERM)
        try await Task.sleep(for: .milliseconds(300))
        #expect(server.process.isRunning, "exited before the in-flight request finished")
        try slow.send("def")
        let response = try slow.readResponse()
        #expect(response.status == 200)
        #expect(response.header("Connection") == "close")
        #expect(try idle.isClosedByPeer())
        #expect(server.waitForExit(seconds: 10) == 0)
        #expect(server.log.contains { $0.contains(#""event":"shutdown_complete""#) })
    }

    @Test(.enabled(if: ServerDatabase.sqliteOnly)) func createsItsDatabaseAndValidatesTheComponentGraphAtStartUp() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-db-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("nested/axiom.db").path
        let server = ServerProcess(arguments: ["--port", "0"], environment: ["AXIOM_DATABASE": database])
        try server.start()
        defer { server.stop() }
        #expect(FileManager.default.fileExists(atPath: database))
        let validated = try #require(server.log.first { $0.contains(#""event":"components_validated""#) })
        #expect(validated.contains(#""passed":"true""#))
    }

    @Test(.enabled(if: ServerDatabase.sqliteOnly)) func refusesToStartWhenStorageCannotBeOpened() throws {
        // A regular file where the database's directory should be.
        let blocker = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-blocker-\(UUID().uuidString)")
        #expect(FileManager.default.createFile(atPath: blocker.path, contents: Data("not a directory".utf8)))
        defer { try? FileManager.default.removeItem(at: blocker) }
        let (status, output) = try ServerProcess(arguments: ["--port", "0", "--database", blocker.path + "/axiom.db"])
            .runToExit()
        #expect(status == 1)
        #expect(output.contains(#""event":"start_failed""#))
        #expect(!output.contains(#""event":"listening""#))
    }

    @Test func healthcheckProbesARunningServerAndFailsWithoutOne() throws {
        let server = ServerProcess(arguments: ["--port", "0"])
        try server.start()
        defer { server.stop() }
        let healthy = try ServerProcess(arguments: ["healthcheck", "--port", String(server.port)]).runToExit()
        #expect(healthy.status == 0)
        #expect(healthy.output.contains("healthy: GET /ready → HTTP/1.1 200 OK"))
        // The port from the environment, as a container's HEALTHCHECK has it.
        let fromEnvironment = try ServerProcess(arguments: ["healthcheck", "--path", "/health"],
                                                environment: ["AXIOM_PORT": String(server.port), "AXIOM_HOST": "0.0.0.0"])
            .runToExit()
        #expect(fromEnvironment.status == 0)
        // A path that answers 404, and a port nobody listens on.
        #expect(try ServerProcess(arguments: ["healthcheck", "--port", String(server.port), "--path", "/nope"])
            .runToExit().status == 1)
        let closed = try ServerProcess.freePort()
        let refused = try ServerProcess(arguments: ["healthcheck", "--port", String(closed)]).runToExit()
        #expect(refused.status == 1)
        #expect(refused.output.contains("healthcheck: http://127.0.0.1:\(closed)/ready did not answer: connection refused"),
                "\(refused.output)")
        #expect(!refused.output.contains("Failure("))
        #expect(try ServerProcess(arguments: ["healthcheck", "--bogus", "1"]).runToExit().status == 2)
    }

    /// `healthcheck --help` is its usage, exit 0, not "--help needs a value";
    /// a non-2xx answer is said as a sentence.
    @Test func healthcheckHelpPrintsUsageAndANon2xxIsASentence() throws {
        let help = try ServerProcess(arguments: ["healthcheck", "--help"]).runToExit()
        #expect(help.status == 0)
        #expect(help.output.contains("usage: axiom-server healthcheck [--host H] [--port N] [--path /ready]"))
        #expect(!help.output.contains("needs a value"))
        let server = ServerProcess(arguments: ["--port", "0"])
        try server.start()
        defer { server.stop() }
        let missing = try ServerProcess(arguments: ["healthcheck", "--port", String(server.port), "--path", "/nope"])
            .runToExit()
        #expect(missing.status == 1)
        #expect(missing.output.contains("healthcheck: http://127.0.0.1:\(server.port)/nope answered HTTP/1.1 404"))
    }
}
