import Testing
@testable import HTTPServer
import TestSupport

@Suite struct TraceContextTests {
    static let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test func parsesVersion00AndRefusesWhatTheSpecRefuses() {
        #expect(TraceContext.parse(Self.valid)?.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(TraceContext.parse(Self.valid)?.flags == "01")
        // A later version may carry more fields after a dash.
        #expect(TraceContext.parse("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra") != nil)
        for invalid in [
            "", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-011",
            "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902bz-01",
        ] {
            #expect(TraceContext.parse(invalid) == nil, "\(invalid)")
        }
    }

    @Test func idsAreHexOfTheRightLengthAndNotRepeated() {
        var source = TraceIDSource(seed: 42)
        var seen = Set<String>()
        for _ in 0..<1000 {
            let trace = TraceContext.make(from: HTTPFields(), ids: &source)
            #expect(TraceContext.valid(trace.traceparent))
            #expect(trace.traceID.count == 32 && trace.spanID.count == 16 && trace.flags == "00")
            seen.insert(trace.traceID)
        }
        #expect(seen.count == 1000)
    }

    /// The ids are written as hex straight into the head: small values
    /// keep their leading zeros, all-ones stays lowercase, the caller's
    /// trace id and flags survive byte for byte, and a later version is
    /// answered in ours (3.2.2.1).
    @Test func theWrittenTraceparentIsVersion00WithNonZeroIdsAndTheCallersFlags() {
        let small = TraceContext(traceHigh: 0, traceLow: 1, span: 0xf, traceFlags: 0x01, traceState: nil)
        #expect(small.traceparent == "00-00000000000000000000000000000001-000000000000000f-01")
        #expect(TraceContext.valid(small.traceparent))
        let large = TraceContext(traceHigh: .max, traceLow: .max, span: .max, traceFlags: 0xff, traceState: nil)
        #expect(large.traceparent == "00-ffffffffffffffffffffffffffffffff-ffffffffffffffff-ff")
        var head: [UInt8] = Array("x".utf8)
        small.write(into: &head)
        #expect(String(decoding: head, as: UTF8.self) == "x" + small.traceparent)

        var source = TraceIDSource(seed: 7)
        let later = "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-09-more"
        let continued = TraceContext.make(from: ["traceparent": later], ids: &source)
        // We answer in the version we speak (00), with the caller's trace and flags, and our own span.
        #expect(continued.traceparent.hasPrefix("00-4bf92f3577b34da6a3ce929d0e0e4736-"))
        #expect(continued.flags == "09")
        #expect(continued.spanID != "00f067aa0ba902b7" && continued.spanID != "0000000000000000")
        #expect(TraceContext.valid(continued.traceparent))
        for _ in 0..<1000 {
            let fresh = TraceContext.make(from: HTTPFields(), ids: &source)
            #expect(fresh.traceparent.hasPrefix("00-") && fresh.traceparent.hasSuffix("-00"))
            #expect(fresh.spanID != "0000000000000000" && fresh.traceID != String(repeating: "0", count: 32))
        }
    }

    @Test func aValidParentKeepsItsTraceAndStateWithANewSpan() async throws {
        try await TestServer.with(router: PolicyRoutes.router()) { server in
            let client = try server.client()
            try client.send("GET /small HTTP/1.1\r\nHost: t\r\ntraceparent: \(Self.valid)\r\ntracestate: congo=t61rcWkgMzE\r\ntracestate: rojo=00f067aa0ba902b7\r\n\r\n")
            let response = try client.readResponse()
            let echoed = try #require(response.header("traceparent"))
            #expect(echoed.hasPrefix("00-4bf92f3577b34da6a3ce929d0e0e4736-"))
            #expect(echoed.hasSuffix("-01"))
            #expect(!echoed.contains("00f067aa0ba902b7"))
            #expect(TraceContext.parse(echoed) != nil)
            #expect(response.header("tracestate") == "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7")
        }
    }

    @Test func anInvalidParentStartsANewTraceAndDropsTheState() async throws {
        try await TestServer.with(router: PolicyRoutes.router()) { server in
            let client = try server.client()
            try client.send("GET /small HTTP/1.1\r\nHost: t\r\ntraceparent: 00-00000000000000000000000000000000-00f067aa0ba902b7-01\r\ntracestate: a=b\r\n\r\n")
            let response = try client.readResponse()
            let echoed = try #require(response.header("traceparent"))
            #expect(TraceContext.parse(echoed) != nil)
            #expect(!echoed.contains("00000000000000000000000000000000"))
            #expect(response.header("tracestate") == nil)
        }
    }

    @Test func everyResponseCarriesItAndProblemsNameTheTrace() async throws {
        try await TestServer.with(router: PolicyRoutes.router()) { server in
            let client = try server.client()
            for request in ["GET /missing", "GET /nowhere", "PUT /small"] {
                try client.send("\(request) HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\ntraceparent: \(Self.valid)\r\n\r\n")
                let response = try client.readResponse()
                #expect(response.header("traceparent")?.hasPrefix("00-4bf92f3577b34da6a3ce929d0e0e4736-") == true)
                #expect(response.text.hasSuffix(#","trace_id":"4bf92f3577b34da6a3ce929d0e0e4736"}"#), "\(request)")
            }
            // Even a request the parser refused gets a trace of its own.
            let bad = try server.client()
            try bad.send("GET / HTTP/1.1\r\nBad Header: x\r\n\r\n")
            let refused = try bad.readResponse()
            #expect(refused.status == 400)
            let traceID = try #require(refused.header("traceparent")?.split(separator: "-")[1])
            #expect(refused.text.contains(#""trace_id":"\#(traceID)""#))
        }
    }
}
