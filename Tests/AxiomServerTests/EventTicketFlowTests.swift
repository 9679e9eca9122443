import Foundation
import Testing
import TestSupport

/// `POST /events/tickets` and `GET /events?ticket=…` against the real
/// binary over real sockets: what a browser's `EventSource` does, since it
/// cannot send `Authorization`. Expiry (30 s) is pinned on a moved clock in
/// UserClientTests.EventTicketTests.
@Suite struct EventTicketFlowTests {
    private func mint(_ shop: EventShop, _ token: String) throws -> (ticket: String, response: RawClient.Response) {
        let response = try shop.api.call("POST", "/events/tickets", token: token)
        #expect(response.status == 201)
        return (try #require(shop.api.object(response)["ticket"] as? String), response)
    }

    private func ticketStream(_ shop: EventShop, _ ticket: String, lastEventID: String? = nil) throws -> EventStreamClient {
        var target = "/events?ticket=\(ticket)"
        if let lastEventID { target += "&last_event_id=\(lastEventID)" }
        return try EventStreamClient(port: shop.server.port, token: nil, target: target)
    }

    @Test func aTicketOpensTheSessionsStreamOnceAndIsNeverLogged() throws {
        try EventShop.run(users: 1, sessionsEach: 2) { shop in
            let (browser, other) = (shop.tokens[0][0], shop.tokens[0][1])
            let (ticket, minted) = try mint(shop, browser)
            #expect(minted.header("Cache-Control") == "no-store")
            let expiresAt = try #require(shop.api.object(minted)["expires_at"] as? String)
            let rfc3339 = ISO8601DateFormatter()
            rfc3339.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            #expect(rfc3339.date(from: expiresAt) != nil)

            let stream = try ticketStream(shop, ticket)
            #expect(stream.head.status == 200)
            #expect(try stream.nextBlock() == "retry: 2000")
            try shop.setQuantity(3, token: other)
            let event = try #require(try stream.nextEvent())
            #expect(event.type == "cart.updated")
            #expect((event.object["items"] as? [[String: Any]])?.first?["quantity"] as? Int == 3)

            let again = try shop.api.call("GET", "/events?ticket=\(ticket)")
            #expect(again.status == 401)
            #expect(shop.api.object(again)["code"] as? String == "invalid_ticket")
            #expect(again.header("WWW-Authenticate")?.contains(#"error="invalid_token""#) == true)
            #expect(try shop.api.call("GET", "/events?ticket=not-a-ticket").status == 401)
            #expect(try shop.api.call("POST", "/events/tickets").status == 401)
            // The access lines name the route, never the target with its query
            // (flushed at exit: they are written in batches).
            shop.server.signal(SIGTERM)
            #expect(shop.server.waitForExit(seconds: 20) == 0)
            let requests = shop.server.log.filter { $0.contains(#""event":"request""#) && $0.contains(#""route":"/events""#) }
            #expect(requests.count >= 2)
            #expect(!shop.server.log.contains { $0.contains(ticket) })
        }
    }

    @Test func aTicketOfASessionThatSignedOutSinceIsRefused() throws {
        try EventShop.run(users: 1, sessionsEach: 2) { shop in
            let (ticket, _) = try mint(shop, shop.tokens[0][0])
            let (otherTicket, _) = try mint(shop, shop.tokens[0][1])
            #expect(try shop.api.call("DELETE", "/sessions/current", token: shop.tokens[0][0]).status == 204)
            let refused = try shop.api.call("GET", "/events?ticket=\(ticket)")
            #expect(refused.status == 401)
            #expect(shop.api.object(refused)["code"] as? String == "invalid_ticket")
            // The user's other session keeps its own ticket.
            let stream = try ticketStream(shop, otherTicket)
            #expect(stream.head.status == 200)
        }
    }

    /// The README's reconnect pattern: after a drop, a new ticket and the
    /// last id seen as `last_event_id`; what happened meanwhile is replayed.
    @Test func aReconnectWithANewTicketResumesAfterLastEventID() throws {
        try EventShop.run(users: 1, sessionsEach: 2) { shop in
            let (browser, other) = (shop.tokens[0][0], shop.tokens[0][1])
            var seen: String?
            do {
                let stream = try ticketStream(shop, try mint(shop, browser).ticket)
                try shop.setQuantity(1, token: other)
                seen = try stream.nextEvent()?.id
            }
            let last = try #require(seen)
            try shop.setQuantity(2, token: other)
            let resumed = try ticketStream(shop, try mint(shop, browser).ticket, lastEventID: last)
            #expect(resumed.head.status == 200)
            let replayed = try #require(try resumed.nextEvent())
            #expect(EventShop.sequence(replayed.id)! > EventShop.sequence(last)!)
            #expect((replayed.object["items"] as? [[String: Any]])?.first?["quantity"] as? Int == 2)
        }
    }
}
