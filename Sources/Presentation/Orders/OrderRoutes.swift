import Contexts
import Domain
import HTTPServer

/// The signed-in user's orders, bound to the session's OrdersContext:
/// `GET /orders`, `GET /orders/{id}` (your own; any for an admin),
/// `POST /orders/{id}/cancel`, `GET /orders/{id}/history` and
/// `PUT /orders/{id}/shipping_address`.
public struct OrderRoutes: RouteGroup {
    public typealias Bound = OrdersContext
    let orders: SessionBinding<OrdersContext>

    public init(gate: SessionGate) {
        orders = SessionBinding(gate: gate)
    }

    public func register(on router: inout Router) {
        router.get("/orders", policy: .accountData, orders.handler { request in
            try KnownQuery.require(request.http, only: ["limit", "cursor"])
            let page = try PageRequest.from(request.http)
            return .json(.ok, OrderJSON.page(try await request.context.orders(limit: page.limit,
                                                                              cursor: page.cursor)))
        })
        router.get("/orders/{id}", policy: .accountRead, orders.handler { request in
            .json(.ok, OrderJSON.bytes(try await request.context.orderWithPayment(
                try request.http.parameter("id", as: OrderID.self))))
        })
        router.on(.post, "/orders/{id}/cancel", readsBody: false, policy: .accountData, orders.handler { request in
            .json(.ok, OrderJSON.bytes(try await request.context.cancelOrder(
                try request.http.parameter("id", as: OrderID.self))))
        })
        router.get("/orders/{id}/history", policy: .accountRead, orders.handler { request in
            try KnownQuery.require(request.http, only: [])
            let id = try request.http.parameter("id", as: OrderID.self)
            return try JSONBody.response(OrderHistoryJSON(items: try await request.context.history(of: id)))
        })
        router.put("/orders/{id}/shipping_address", policy: .accountData, orders.handler { request in
            let id = try request.http.parameter("id", as: OrderID.self)
            let address = try JSONBody.decode(ShippingAddress.self, from: request.http).validated()
            return .json(.ok, OrderJSON.bytes(try await request.context.address(id, to: address)))
        })
    }
}
