import Foundation
import Testing
import TestSupport

/// The wishlist against the real binary, on this run's backend: saving and
/// removing products, what a shopper sees of them, bad input, the bound,
/// and `wishlist.updated` on `/events`, live, resumed, and from another
/// process on the same database.
@Suite struct WishlistFlowTests {
    typealias API = AccountFlowTests.API

    static func items(_ body: [String: Any]) -> [[String: Any]] {
        body["items"] as? [[String: Any]] ?? []
    }

    static func ids(_ body: [String: Any]) -> [String] {
        items(body).compactMap { $0["product_id"] as? String }
    }

    static func product(_ api: API, sku: String, stock: Int, admin: String) throws -> String {
        let created = try api.call("POST", "/products", json: #"{"sku":"\#(sku)","name":"Item \#(sku)","description":"","price":{"amount":700,"currency":"USD"},"stock":\#(stock)}"#, token: admin)
        #expect(created.status == 201)
        return try #require(api.object(created)["id"] as? String)
    }

    @Test func savedProductsShowNewestFirstWithPriceAndAvailability() throws {
        try EventShop.run(users: 2, sessionsEach: 1) { shop in
            let (api, alice, bob) = (shop.api, shop.tokens[0][0], shop.tokens[1][0])
            let empty = try api.call("GET", "/wishlist", token: alice)
            #expect(empty.status == 200 && Self.items(api.object(empty)).isEmpty)

            let teapot = shop.productID
            let cup = try Self.product(api, sku: "WL-CUP", stock: 0, admin: shop.admin)
            let jar = try Self.product(api, sku: "WL-JAR", stock: 3, admin: shop.admin)
            for id in [teapot, cup, jar] {
                #expect(try api.call("PUT", "/wishlist/items/\(id)", token: alice).status == 200)
            }
            #expect(try api.call("PATCH", "/products/\(jar)", json: #"{"active":false}"#, token: shop.admin).status == 200)
            let shown = api.object(try api.call("GET", "/wishlist", token: alice))
            #expect(Self.ids(shown) == [jar, cup, teapot])
            #expect(Self.items(shown).map { $0["availability"] as? String } == ["unavailable", "out_of_stock", "in_stock"])
            let first = try #require(Self.items(shown).last)
            #expect(first["name"] as? String == "Teapot")
            #expect(EventShop.sameJSON(first["price"] as? [String: Any] ?? [:], ["amount": 1250, "currency": "USD"]))

            // Saving again changes nothing: same answer, same place in the list.
            let again = try api.call("PUT", "/wishlist/items/\(teapot)", token: alice)
            #expect(again.status == 200 && Self.ids(api.object(again)) == [jar, cup, teapot])
            // Removing answers the list without it; removing it again is no error.
            let removed = try api.call("DELETE", "/wishlist/items/\(cup)", token: alice)
            #expect(removed.status == 200 && Self.ids(api.object(removed)) == [jar, teapot])
            let twice = try api.call("DELETE", "/wishlist/items/\(cup)", token: alice)
            #expect(twice.status == 200 && Self.ids(api.object(twice)) == [jar, teapot])
            // One list per user: Bob's is his own.
            #expect(Self.items(try shop.get("/wishlist", token: bob)).isEmpty)

            // Conditional GET, as for the cart.
            let tagged = try api.call("GET", "/wishlist", token: alice)
            let etag = try #require(tagged.header("ETag"))
            #expect(try api.call("GET", "/wishlist", token: alice, headers: ["If-None-Match": etag]).status == 304)
            #expect(try api.call("PUT", "/wishlist/items/\(cup)", token: alice).status == 200)
            #expect(try api.call("GET", "/wishlist", token: alice, headers: ["If-None-Match": etag]).status == 200)
        }
    }

    @Test func badInputIsRefusedWithAStableCodeAndChangesNothing() throws {
        try EventShop.run(users: 1, sessionsEach: 1) { shop in
            let (api, alice) = (shop.api, shop.tokens[0][0])
            let unknown = try api.call("PUT", "/wishlist/items/\(UUID().uuidString.lowercased())", token: alice)
            #expect(unknown.status == 404 && api.object(unknown)["code"] as? String == "product_not_found")
            let notAnID = try api.call("PUT", "/wishlist/items/not-a-product", token: alice)
            #expect(notAnID.status == 404 && api.object(notAnID)["code"] as? String == "product_not_found")
            #expect(try api.call("GET", "/wishlist").status == 401)
            #expect(try api.call("PUT", "/wishlist/items/\(shop.productID)").status == 401)
            #expect(Self.items(try shop.get("/wishlist", token: alice)).isEmpty)

            // The bound: the 101st product is refused, and the list stays at 100.
            var saved = [shop.productID]
            #expect(try api.call("PUT", "/wishlist/items/\(shop.productID)", token: alice).status == 200)
            for index in 1..<100 {
                let id = try Self.product(api, sku: "WL-\(index)", stock: 1, admin: shop.admin)
                #expect(try api.call("PUT", "/wishlist/items/\(id)", token: alice).status == 200)
                saved.append(id)
            }
            let extra = try Self.product(api, sku: "WL-EXTRA", stock: 1, admin: shop.admin)
            let full = try api.call("PUT", "/wishlist/items/\(extra)", token: alice)
            #expect(full.status == 422 && api.object(full)["code"] as? String == "validation_failed")
            let fields = (api.object(full)["errors"] as? [[String: Any]])?.map { ($0["field"] as? String, $0["code"] as? String) }
            #expect(fields?.first?.0 == "items" && fields?.first?.1 == "too_long")
            let kept = try shop.get("/wishlist", token: alice)
            #expect(Self.ids(kept) == saved.reversed())
            // A product already saved is still no change, full or not; one out makes room.
            #expect(try api.call("PUT", "/wishlist/items/\(shop.productID)", token: alice).status == 200)
            #expect(try api.call("DELETE", "/wishlist/items/\(saved[5])", token: alice).status == 200)
            #expect(try api.call("PUT", "/wishlist/items/\(extra)", token: alice).status == 200)
        }
    }

    @Test func anotherSessionSeesEachChangeAsGETShowsItAndNothingForNoChange() throws {
        try EventShop.run(users: 2, sessionsEach: 2) { shop in
            let (api, writer, watching) = (shop.api, shop.tokens[0][0], shop.tokens[0][1])
            let watcher = try shop.stream(watching)
            let stranger = try shop.stream(shop.tokens[1][0])
            #expect(try api.call("PUT", "/wishlist/items/\(shop.productID)", token: writer).status == 200)
            let saved = try #require(try watcher.event())
            #expect(saved.type == "wishlist.updated" && saved.id != nil)
            #expect(EventShop.sameJSON(saved.object, try shop.get("/wishlist", token: watching)))
            // Saved again: no change, no event; the next event is the removal.
            #expect(try api.call("PUT", "/wishlist/items/\(shop.productID)", token: writer).status == 200)
            #expect(try api.call("DELETE", "/wishlist/items/\(shop.productID)", token: writer).status == 200)
            let removed = try #require(try watcher.event())
            #expect(removed.type == "wishlist.updated" && Self.items(removed.object).isEmpty)
            #expect(EventShop.sequence(removed.id)! > EventShop.sequence(saved.id)!)
            // The other user's stream carries none of it: its next event is its own.
            try shop.setQuantity(1, token: shop.tokens[1][0])
            let own = try #require(try stranger.event())
            #expect(own.type == "cart.updated")
        }
    }

    @Test func aChangeOnOneProcessReachesAStreamOnTheOtherAndAnIDResumesThere() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-wish-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let shop = try EventResumeTests.open(processes: 2, database: .fresh(in: directory))
        defer { shop.stop() }
        let onA = shop.apis[0]
        let second = try Self.product(onA, sku: "WL-B", stock: 5, admin: onA.token("root@example.com", "a very long secret"))

        // Live across processes: saved on A, shown on B's stream with A's id.
        let onB = try shop.stream(on: 1)
        #expect(try onA.call("PUT", "/wishlist/items/\(shop.product)", token: shop.tokens[0]).status == 200)
        let live = try #require(try onB.event())
        #expect(live.type == "wishlist.updated" && Self.ids(live.object) == [shop.product])
        let last = try #require(live.id)

        // While the client is away: two changes on A, and a cart change.
        #expect(try onA.call("PUT", "/wishlist/items/\(second)", token: shop.tokens[0]).status == 200)
        #expect(try onA.call("DELETE", "/wishlist/items/\(shop.product)", token: shop.tokens[0]).status == 200)
        try shop.setQuantity(2, on: 0)

        // Resumed on B: the wishlist once, as it is now, and the cart, in id order.
        let resumed = try shop.stream(on: 1, after: last)
        let replay = try [resumed.event(), resumed.event()].compactMap { $0 }
        #expect(replay.map(\.type) == ["wishlist.updated", "cart.updated"])
        #expect(replay.first.map { Self.ids($0.object) } == [second])
        let current = try Self.wishlist(on: shop, 1)
        #expect(replay.first.map { EventShop.sameJSON($0.object, current) } == true)
        #expect(replay.allSatisfy { $0.id != nil } && EventResumeTests.rising(replay))
        #expect(EventShop.sequence(replay.first?.id)! > EventShop.sequence(last)!)
        // Then live: A's next change, not a replayed one again.
        #expect(try onA.call("PUT", "/wishlist/items/\(shop.product)", token: shop.tokens[0]).status == 200)
        let next = try #require(try resumed.event())
        #expect(next.type == "wishlist.updated" && Self.ids(next.object) == [shop.product, second])
        #expect(EventResumeTests.rising(replay + [next]))
    }

    static func wishlist(on shop: EventResumeTests.Shop, _ index: Int) throws -> [String: Any] {
        let response = try shop.apis[index].call("GET", "/wishlist", token: shop.tokens[index])
        #expect(response.status == 200)
        return shop.apis[index].object(response)
    }
}

extension EventStreamClient {
    /// The next event, or nil when two heartbeats come first: an event that
    /// never comes fails the test instead of hanging it (heartbeats keep
    /// each read from timing out).
    func event() throws -> Event? {
        var heartbeats = 0
        while let block = try nextBlock() {
            if block.hasPrefix(":") {
                heartbeats += 1
                if heartbeats == 2 { return nil }
                continue
            }
            var id: String?, type: String?, data: String?
            for line in block.split(separator: "\n") {
                if line.hasPrefix("id: ") { id = String(line.dropFirst(4)) }
                if line.hasPrefix("event: ") { type = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
            }
            if let data { return Event(id: id, type: type, data: data) }
        }
        return nil
    }
}
