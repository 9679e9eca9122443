import Foundation
import Testing
import TestSupport

/// How a `GET /events` stream starts, resumes and ends, against the real
/// binary: 401 without a token, `Last-Event-ID`, logout, revocation, idle
/// sessions, SIGTERM.
@Suite struct EventStreamLifetimeTests {
    @Test func noTokenOrABadOneIs401() throws {
        try EventShop.run(users: 0, sessionsEach: 0) { shop in
            for token in [nil, "not-a-token-we-issued"] {
                let anonymous = try shop.stream(token)
                #expect(anonymous.head.status == 401)
                #expect(anonymous.head.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
                #expect(anonymous.head.header("Content-Type")?.hasPrefix("application/problem+json") == true)
            }
        }
    }

    /// The next event on `stream`: the cart with `quantity` of the product,
    /// at an outbox position after `resumeFrom` (ids are outbox positions:
    /// rising, consecutive only on SQLite).
    private static func replayedCart(_ stream: EventStreamClient, quantity: Int,
                                     after resumeFrom: String) throws -> EventStreamClient.Event {
        let replayed = try #require(try stream.nextEvent())
        #expect(replayed.type == "cart.updated")
        #expect((replayed.object["items"] as? [[String: Any]])?.first?["quantity"] as? Int == quantity)
        #expect(EventShop.sequence(replayed.id)! > EventShop.sequence(resumeFrom)!)
        return replayed
    }

    @Test func lastEventIDResumesOrAsksForARefetch() throws {
        try EventShop.run(users: 1, sessionsEach: 2) { shop in
            let (writer, token) = (shop.tokens[0][0], shop.tokens[0][1])
            let resumeFrom = try #require(try shop.firstEventID(watching: token, changedBy: writer))
            // Two changes while disconnected.
            try shop.setQuantity(2, token: writer)
            try shop.setQuantity(4, token: writer)

            // The replay is the cart as it is now, once, with its newest change's id.
            let resumed = try shop.stream(token, lastEventID: resumeFrom)
            #expect(try resumed.nextBlock() == "retry: 2000")
            let replayed = try Self.replayedCart(resumed, quantity: 4, after: resumeFrom)
            // Then it goes on live, without the replayed change again.
            try shop.setQuantity(5, token: writer)
            let live = try #require(try resumed.nextEvent())
            #expect(EventShop.sequence(live.id)! > EventShop.sequence(replayed.id)!)
            #expect((live.object["items"] as? [[String: Any]])?.first?["quantity"] as? Int == 5)

            // An id that is no sequence (the old epoch-n form), or one from the
            // outbox's future, cannot be resumed.
            for id in ["from-another-life-7", "-3", String(EventShop.sequence(live.id)! + (1 << 40))] {
                let unknown = try shop.stream(token, lastEventID: id)
                let reset = try unknown.nextEvent()
                #expect(reset?.type == "reset", "\(id)")
                #expect(reset?.object["reason"] is String)
                #expect(reset?.id == nil)
            }
            // The user's other session resumes from the same id: ids are the
            // outbox's, not a session's.
            let other = try shop.stream(writer, lastEventID: resumeFrom)
            let otherReplay = try #require(try other.nextEvent())
            #expect(otherReplay.type == "cart.updated")
            #expect(otherReplay.id == live.id)
        }
    }

    @Test func manyChangesWhileAwayReplayAsTheCurrentCartOnce() throws {
        try EventShop.run(users: 1, sessionsEach: 2) { shop in
            let (writer, token) = (shop.tokens[0][0], shop.tokens[0][1])
            let resumeFrom = try #require(try shop.firstEventID(watching: token, changedBy: writer))
            // More changes than a stream may hold unsent (256).
            for round in 0..<257 { try shop.setQuantity(round % 2 + 2, token: writer) }
            let resumed = try shop.stream(token, lastEventID: resumeFrom)
            let replayed = try Self.replayedCart(resumed, quantity: 2, after: resumeFrom)
            try shop.setQuantity(9, token: writer)
            let live = try #require(try resumed.nextEvent())
            #expect(live.type == "cart.updated")
            #expect(EventShop.sequence(live.id)! > EventShop.sequence(replayed.id)!)
        }
    }

    @Test func logoutEndsOnlyThatSessionsStream() throws {
        try EventShop.run(users: 1, sessionsEach: 2) { shop in
            let (kept, leaving) = (shop.tokens[0][0], shop.tokens[0][1])
            let leavingStream = try shop.stream(leaving)
            let keptStream = try shop.stream(kept)
            #expect(try leavingStream.nextBlock() == "retry: 2000")
            #expect(try keptStream.nextBlock() == "retry: 2000")
            #expect(try shop.api.call("DELETE", "/sessions/current", token: leaving).status == 204)
            // The stream ends with its last chunk (nil), not a reset connection.
            #expect(try leavingStream.nextBlock() == nil)
            // The same token cannot open another one.
            #expect(try shop.stream(leaving).head.status == 401)
            // The user's other session still streams.
            try shop.setQuantity(3, token: kept)
            #expect(try keptStream.nextEvent()?.type == "cart.updated")
        }
    }

    @Test func suspendingTheUserEndsTheirStreams() throws {
        try EventShop.run(users: 1, sessionsEach: 1, arguments: ["--events-heartbeat-interval", "0.1"]) { shop in
            let token = shop.tokens[0][0]
            let userID = try #require(try shop.get("/users/me", token: token)["id"] as? String)
            let stream = try shop.stream(token)
            #expect(try stream.nextBlock() == "retry: 2000")
            let suspended = try shop.api.call("PATCH", "/users/\(userID)", json: #"{"status":"suspended"}"#, token: shop.admin)
            #expect(suspended.status == 200)
            // The token was revoked with the suspension: the stream ends too.
            let rest = try #require(try stream.blocksUntilEnd())
            #expect(rest.allSatisfy { $0.hasPrefix(":") })
        }
    }

    @Test func aStreamKeepsItsSessionFromExpiringWhileOpen() throws {
        // Contexts of sessions without requests for 0.5 s are released.
        try EventShop.run(users: 1, sessionsEach: 2, arguments: ["--session-idle-timeout", "0.5"]) { shop in
            let (writer, token) = (shop.tokens[0][0], shop.tokens[0][1])
            let stream = try shop.stream(token)
            try shop.setQuantity(1, token: writer)
            let first = try #require(try stream.nextEvent())
            // Idle well past the timeout, then a request on the same session:
            // an expired session would get a new context now, and the old
            // one's stream would end.
            Thread.sleep(forTimeInterval: 1.2)
            #expect(try shop.api.call("GET", "/cart", token: token).status == 200)
            try shop.setQuantity(2, token: writer)
            let next = try #require(try stream.nextEvent())
            #expect(next.type == "cart.updated")
            #expect(EventShop.sequence(next.id)! > EventShop.sequence(first.id)!)
        }
    }

    @Test func sigtermEndsOpenStreamsAndTheProcessExitsPromptly() throws {
        try EventShop.run(users: 1, sessionsEach: 2, arguments: ["--events-heartbeat-interval", "0.1"]) { shop in
            var streams = try shop.tokens[0].map { try shop.stream($0) }
            for stream in streams { #expect(try stream.nextBlock() == "retry: 2000") }
            let signalled = ContinuousClock.now
            shop.server.signal(SIGTERM)
            // Each stream ends with its last chunk; the client then closes, as
            // an EventSource does, so the server's lingering close is short.
            var ended: [Duration] = []
            for stream in streams {
                try #require(try stream.blocksUntilEnd() != nil)
                ended.append(ContinuousClock.now - signalled)
            }
            streams = []
            #expect(shop.server.waitForExit(seconds: 30) == 0)
            print("SIGTERM with \(ended.count) open streams: streams ended after \(ended.map(\.description)), "
                  + "process exited 0 after \(ContinuousClock.now - signalled) (shutdown deadline 10 s)")
            #expect(shop.server.log.contains { $0.contains(#""event":"shutdown_complete","forced_closed":0"#) },
                    "\(shop.server.log.filter { !$0.contains("\"request\"") }.suffix(4))")
        }
    }
}
