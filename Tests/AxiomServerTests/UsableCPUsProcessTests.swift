import Foundation
import Testing
import TestSupport

/// `event_loops: 0` on the real binary follows the CPUs its affinity mask
/// allows (`taskset`), and says so in the `listening` line and `/metrics`.
@Suite struct UsableCPUsProcessTests {
    typealias API = AccountFlowTests.API

    private func started(onCPUs cpus: String) throws -> ServerProcess {
        let server = ServerProcess(arguments: ["--port", "0", "--event-loops", "0"])
        server.pin(toCPUs: cpus)
        try server.start()
        return server
    }

    @Test func onOneCPUItStartsOneLoop() throws {
        let server = try started(onCPUs: "0")
        defer { server.stop() }
        let listening = try #require(server.log.first { $0.contains(#""event":"listening""#) })
        #expect(listening.contains(#""event_loops":1"#))
        #expect(listening.contains(#""usable_cpus":1"#))
        let metrics = try API(port: server.port).call("GET", "/metrics").text
        #expect(metrics.contains("\naxiom_event_loops 1\n"))
        #expect(metrics.contains("\naxiom_usable_cpus 1\n"))
    }

    @Test(.enabled(if: sysconf(Int32(_SC_NPROCESSORS_ONLN)) >= 2, "needs two CPUs"))
    func onTwoCPUsItStartsTwoLoops() throws {
        let server = try started(onCPUs: "0,1")
        defer { server.stop() }
        let listening = try #require(server.log.first { $0.contains(#""event":"listening""#) })
        #expect(listening.contains(#""event_loops":2"#))
    }
}
