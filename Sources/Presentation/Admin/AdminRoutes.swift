import Contexts
import Domain
import HTTPServer

/// What only admins may do, bound to the session's AdminContext (which
/// checks the role): `POST /products`, `PATCH /products/{id}`, `GET /users`,
/// `PATCH /users/{id}`, `PATCH /orders/{id}` `{"status": …}`, `POST
/// /orders/{id}/payment` and `POST /orders/{id}/refunds` (money received
/// or given back outside the provider), and the ledger's reads (`GET
/// /orders/{id}/ledger`, `GET /payments/ledger`, `GET /payments/refunds-owed`)
/// and every customer's orders (`GET /admin/orders`).
/// Who is asking comes first: an anonymous caller gets 401, not a verdict on its body.
public struct AdminRoutes: RouteGroup {
    public typealias Bound = AdminContext
    public let name = "AdminRoutes"
    let admin: SessionBinding<AdminContext>

    public init(gate: SessionGate) {
        admin = SessionBinding(gate: gate)
    }

    struct StatusBody: Decodable {
        let status: OrderStatus
    }

    public func register(on router: inout Router) {
        router.post("/products", admin.handler { request in
            let draft = try JSONBody.decode(ProductDraft.self, from: request.http)
            let product = try await request.context.createProduct(draft, by: request.caller)
            return try JSONBody.response(product, status: .created, headers: ["Location": "/products/\(product.id)"])
        })
        router.patch("/products/{id}", admin.handler { request in
            let patch = try JSONBody.decode(ProductPatch.self, from: request.http)
            let id = try request.http.parameter("id", as: ProductID.self)
            let ifMatch = ConditionalWrite.condition(request.http) { (product: Product) in try JSONBody.encode(product) }
            return ConditionalWrite.response(try JSONBody.encode(
                try await request.context.updateProduct(id, patch, by: request.caller, ifMatch: ifMatch)))
        })
        router.get("/users", policy: .accountData, admin.handler { request in
            let page = try PageRequest.from(request.http)
            return try JSONBody.response(try await request.context.users(limit: page.limit, cursor: page.cursor,
                                                                         by: request.caller))
        })
        router.patch("/users/{id}", policy: .accountData, admin.handler { request in
            let patch = try JSONBody.decode(UserAdminPatch.self, from: request.http)
            let id = try request.http.parameter("id", as: UserID.self)
            return try JSONBody.response(try await request.context.updateUser(id, patch, by: request.caller))
        })
        router.patch("/orders/{id}", policy: .accountData, admin.handler { request in
            let body = try JSONBody.decode(StatusBody.self, from: request.http)
            let id = try request.http.parameter("id", as: OrderID.self)
            return .json(.ok, OrderJSON.bytes(try await request.context.moveOrder(id, to: body.status, by: request.caller)))
        })
        router.post("/orders/{id}/payment", policy: .accountData, admin.handler { request in
            let body = try ManualPaymentBody.decode(from: request.http)
            let id = try request.http.parameter("id", as: OrderID.self)
            return .json(.ok, OrderJSON.bytes(try await request.context.recordManualPayment(
                id, amount: body.amount, reference: body.reference, by: request.caller)))
        })
        router.post("/orders/{id}/refunds", policy: .accountData, admin.handler { request in
            let body = try ManualRefundBody.decode(from: request.http)
            let id = try request.http.parameter("id", as: OrderID.self)
            return .json(.ok, OrderJSON.bytes(try await request.context.recordManualRefund(
                id, amount: body.amount, reference: body.reference, by: request.caller)))
        })
        router.get("/orders/{id}/ledger", policy: .accountData, admin.handler { request in
            try KnownQuery.require(request.http, only: [])
            let id = try request.http.parameter("id", as: OrderID.self)
            return try JSONBody.response(LedgerPage(items: try await request.context.ledger(ofOrder: id, by: request.caller),
                                                    nextCursor: nil))
        })
        router.get("/payments/ledger", policy: .accountData, admin.handler { request in
            let query = try LedgerQuery.from(request.http)
            let entries = try await request.context.ledger(from: query.from, to: query.to, after: query.position,
                                                           limit: query.page.limit + 1, by: request.caller)
            return try JSONBody.response(LedgerPage(entries, limit: query.page.limit))
        })
        router.get("/admin/orders", policy: .accountData, admin.handler { request in
            let query = try AdminOrderQuery.from(request.http)
            return .json(.ok, OrderJSON.page(try await request.context.orders(
                query.filter, financialStatus: query.financialStatus, refundOwed: query.refundOwed,
                limit: query.page.limit, cursor: query.page.cursor, by: request.caller)))
        })
        router.get("/payments/refunds-owed", policy: .accountData, admin.handler { request in
            try KnownQuery.require(request.http, only: ["limit", "cursor"])
            let page = try PageRequest.from(request.http)
            let owing = try await request.context.refundsOwed(after: try RefundsOwedPage.cursor(page),
                                                              limit: page.limit + 1, by: request.caller)
            return try JSONBody.response(RefundsOwedPage(owing, limit: page.limit))
        })
    }
}
