import Contexts
import Domain
import HTTPServer

/// Checkout and orders, bound to the session's AccountContext:
/// `POST /checkout` (honours `Idempotency-Key`), `GET /orders`,
/// `GET /orders/{id}`, `POST /orders/{id}/cancel`, and for admins
/// `PATCH /orders/{id}` `{"status": …}`.
public enum OrderRoutes {
    public static let name = "OrderRoutes"

    struct StatusBody: Decodable {
        let status: OrderStatus
    }

    public static func register(on router: inout Router, sessions: SessionResolver) {
        router.on(.post, "/checkout", readsBody: false) { request in
            try await ErrorResponses.handling {
                let key = try idempotencyKey(request)
                let (order, _) = try await sessions.withAccount(request) { account, _ in
                    try await account.checkout(idempotencyKey: key)
                }
                // A retried key answers exactly as the first time.
                return try JSONBody.response(order, status: .created, headers: ["Location": "/orders/\(order.order.id)"])
            }
        }
        router.get("/orders") { request in
            try await ErrorResponses.handling {
                let page = try PageRequest.from(request)
                return try JSONBody.response(try await sessions.withAccount(request) { account, _ in
                    try await account.myOrders(limit: page.limit, cursor: page.cursor)
                })
            }
        }
        router.get("/orders/{id}") { request in
            try await ErrorResponses.handling {
                try JSONBody.response(try await sessions.withAccount(request) { account, _ in
                    try await account.orderWithPayment(try orderID(request))
                })
            }
        }
        router.on(.post, "/orders/{id}/cancel", readsBody: false) { request in
            try await ErrorResponses.handling {
                try JSONBody.response(try await sessions.withAccount(request) { account, _ in
                    try await account.cancelOrder(try orderID(request))
                })
            }
        }
        router.patch("/orders/{id}") { request in
            try await ErrorResponses.handling {
                try JSONBody.response(try await sessions.withAccount(request) { account, _ in
                    let body = try JSONBody.decode(StatusBody.self, from: request)
                    return try await account.moveOrder(try orderID(request), to: body.status)
                })
            }
        }
    }

    static func orderID(_ request: HTTPRequest) throws -> OrderID {
        let text = request.parameters["id"] ?? ""
        guard let id = OrderID(text) else { throw DomainError.notFound(entity: "order", id: text) }
        return id
    }

    /// 1–255 visible ASCII characters, or absent.
    private static func idempotencyKey(_ request: HTTPRequest) throws -> String? {
        guard let key = request.headers["idempotency-key"] else { return nil }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw DomainError.validation(ValidationError([FieldError(
                field: "Idempotency-Key", code: .invalidFormat,
                message: "Idempotency-Key must be 1 to 255 visible ASCII characters")]))
        }
        return key
    }
}
