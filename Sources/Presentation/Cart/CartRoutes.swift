import Contexts
import Domain
import HTTPServer

/// The signed-in user's cart, bound to the session's CartContext:
/// `GET /cart`, `PUT /cart/items/{product_id}` `{"quantity": n}`,
/// `DELETE /cart/items/{product_id}`, `DELETE /cart`.
public struct CartRoutes: RouteGroup {
    public typealias Bound = CartContext
    let cart: SessionBinding<CartContext>

    public init(gate: SessionGate) {
        cart = SessionBinding(gate: gate)
    }

    struct QuantityBody: Decodable {
        let quantity: Int

        /// `{"quantity": n}` read directly (the usual body); anything else
        /// through JSONBody, with its errors. Content-Type is checked first
        /// on both ways.
        static func from(_ request: HTTPRequest) throws -> QuantityBody {
            try JSONBody.requireJSONMediaType(request)
            if let quantity = SoleIntegerMember.value(named: "quantity", in: request.body) {
                return QuantityBody(quantity: quantity)
            }
            return try JSONBody.decode(QuantityBody.self, from: request)
        }
    }

    public func register(on router: inout Router) {
        router.get("/cart", policy: .accountRead, cart.handler { request in
            .json(.ok, CartJSON.bytes(try await request.context.cart()))
        })
        router.put("/cart/items/{product_id}", policy: .accountData, cart.handler { request in
            let body = try QuantityBody.from(request.http)
            let productID = try request.http.parameter("product_id", as: ProductID.self)
            let ifMatch = ConditionalWrite.condition(request.http) { (quote: CartQuote) in CartJSON.bytes(quote) }
            return ConditionalWrite.response(CartJSON.bytes(try await request.context.setQuantity(
                body.quantity, of: productID, ifMatch: ifMatch)))
        })
        router.delete("/cart/items/{product_id}", policy: .accountData, cart.handler { request in
            let productID = try request.http.parameter("product_id", as: ProductID.self)
            let ifMatch = ConditionalWrite.condition(request.http) { (quote: CartQuote) in CartJSON.bytes(quote) }
            return ConditionalWrite.response(CartJSON.bytes(try await request.context.removeLine(
                productID, ifMatch: ifMatch)))
        })
        router.delete("/cart", policy: .accountData, cart.handler { request in
            try await request.context.clear()
            return HTTPResponse(status: .noContent)
        })
    }
}
