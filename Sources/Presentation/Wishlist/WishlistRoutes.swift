import Contexts
import Domain
import Formats
import HTTPServer

/// The signed-in user's wishlist, bound to the session's WishlistContext:
/// `GET /wishlist`, `PUT /wishlist/items/{product_id}` (idempotent, no
/// body), `DELETE /wishlist/items/{product_id}`; each answers the list.
public struct WishlistRoutes: RouteGroup {
    public typealias Bound = WishlistContext
    let wishlist: SessionBinding<WishlistContext>

    public init(gate: SessionGate) {
        wishlist = SessionBinding(gate: gate)
    }

    public func register(on router: inout Router) {
        router.get("/wishlist", policy: .accountRead, wishlist.handler { request in
            .json(.ok, try await request.context.wishlist().liveJSON())
        })
        router.put("/wishlist/items/{product_id}", policy: .accountData, wishlist.handler { request in
            let productID = try request.http.parameter("product_id", as: ProductID.self)
            return .json(.ok, try await request.context.save(productID).liveJSON())
        })
        router.delete("/wishlist/items/{product_id}", policy: .accountData, wishlist.handler { request in
            let productID = try request.http.parameter("product_id", as: ProductID.self)
            return .json(.ok, try await request.context.remove(productID).liveJSON())
        })
    }
}

/// `{items: [{product_id, name, price, availability}]}`, newest first: the
/// answer of every wishlist route and the data of `wishlist.updated`.
extension Wishlist: LivePayloadJSON {
    func liveJSON() -> [UInt8] {
        var json = JSONBytes(capacity: 16 + items.count * 160)
        json.raw("{\"items\":[")
        for (index, item) in items.enumerated() {
            json.raw(index == 0 ? "{\"product_id\":" : ",{\"product_id\":")
            json.rawString(item.productID.description)
            json.raw(",\"name\":")
            if let name = item.name { json.string(name) } else { json.raw("null") }
            json.raw(",\"price\":")
            if let price = item.price { json.money(price) } else { json.raw("null") }
            json.raw(",\"availability\":")
            json.rawString(item.availability.rawValue)
            json.raw("}")
        }
        json.raw("]}")
        return json.bytes
    }
}
