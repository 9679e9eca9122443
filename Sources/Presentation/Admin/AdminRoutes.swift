import Axiom
import Contexts
import Domain
import HTTPServer

/// What only admins may do, bound to the session's AdminContext (which
/// checks the role): `POST /products`, `PATCH /products/{id}`, every
/// product, deactivated ones too (`GET /admin/products`,
/// `GET /admin/products/{id}`, whose `ETag` is the one `PATCH` takes in
/// `If-Match`), `GET /users`,
/// `PATCH /users/{id}`, `PATCH /orders/{id}` `{"status": …}`, `POST
/// /orders/{id}/payment` and `POST /orders/{id}/refunds` (money received
/// or given back outside the provider), and the ledger's reads (`GET
/// /orders/{id}/ledger`, `GET /payments/ledger`, `GET /payments/refunds-owed`,
/// `GET /payments/anomalies`)
/// and every customer's orders (`GET /admin/orders`), and CSV exports of
/// orders and of the ledger for a time range (`GET /admin/exports/…`), and
/// the job queue (`GET /admin/jobs…`, `AdminRoutes+Jobs`) and the webhooks
/// (`/admin/webhooks…`, `AdminRoutes+Webhooks`). The product documents here
/// carry `low_stock_threshold`, which the public catalogue leaves out.
/// Who is asking comes first: an anonymous caller gets 401, not a verdict on its body.
public struct AdminRoutes: RouteGroup {
    public typealias Bound = AdminContext
    let admin: SessionBinding<AdminContext>

    public init(gate: SessionGate) {
        admin = SessionBinding(gate: gate)
    }

    struct StatusBody: Decodable {
        let status: OrderStatus
    }

    public func register(on router: inout Router) {
        registerJobs(on: &router)
        registerWebhooks(on: &router)
        router.post("/products", admin.handler { request in
            let draft = try JSONBody.decode(ProductDraft.self, from: request.http)
            let product = try await request.context.createProduct(draft)
            return .json(.created, ProductJSON.bytes(product, for: .admins), headers: ["Location": "/products/\(product.id)"])
        })
        router.patch("/products/{id}", admin.handler { request in
            let patch = try JSONBody.decode(ProductPatch.self, from: request.http)
            let id = try request.http.parameter("id", as: ProductID.self)
            // The storefront's tag too: it names the state as far as it shows it.
            let ifMatch = ConditionalWrite.condition(request.http, representations: { (product: Product) in
                [ProductJSON.bytes(product, for: .admins), ProductJSON.bytes(product)]
            })
            return ConditionalWrite.response(ProductJSON.bytes(
                try await request.context.updateProduct(id, patch, ifMatch: ifMatch), for: .admins))
        })
        router.get("/admin/products", policy: .accountRead, admin.handler { request in
            let query = try AdminProductQuery.from(request.http)
            return .json(.ok, ProductJSON.page(try await request.context.products(query), for: .admins))
        })
        router.get("/admin/products/{id}", policy: .accountRead, admin.handler { request in
            try KnownQuery.require(request.http, only: [])
            let id = try request.http.parameter("id", as: ProductID.self)
            return ConditionalWrite.response(ProductJSON.bytes(try await request.context.product(id), for: .admins))
        })
        router.get("/users", policy: .accountData, admin.handler { request in
            try KnownQuery.require(request.http, only: ["limit", "cursor"])
            let page = try PageRequest.from(request.http)
            return try JSONBody.response(try await request.context.users(limit: page.limit, cursor: page.cursor))
        })
        router.patch("/users/{id}", policy: .accountData, admin.handler { request in
            let patch = try JSONBody.decode(UserAdminPatch.self, from: request.http)
            let id = try request.http.parameter("id", as: UserID.self)
            return try JSONBody.response(try await request.context.updateUser(id, patch))
        })
        router.patch("/orders/{id}", policy: .accountData, admin.handler { request in
            let body = try JSONBody.decode(StatusBody.self, from: request.http)
            let id = try request.http.parameter("id", as: OrderID.self)
            return .json(.ok, OrderJSON.bytes(try await request.context.moveOrder(id, to: body.status)))
        })
        router.post("/orders/{id}/payment", policy: .accountData, admin.handler { request in
            let body = try ManualPaymentBody.decode(from: request.http)
            let id = try request.http.parameter("id", as: OrderID.self)
            return .json(.ok, OrderJSON.bytes(try await request.context.recordManualPayment(
                id, amount: body.amount, reference: body.reference)))
        })
        router.post("/orders/{id}/refunds", policy: .accountData, admin.handler { request in
            let body = try ManualRefundBody.decode(from: request.http)
            let id = try request.http.parameter("id", as: OrderID.self)
            return .json(.ok, OrderJSON.bytes(try await request.context.recordManualRefund(
                id, amount: body.amount, reference: body.reference)))
        })
        router.get("/orders/{id}/ledger", policy: .accountData, admin.handler { request in
            try KnownQuery.require(request.http, only: [])
            let id = try request.http.parameter("id", as: OrderID.self)
            return try JSONBody.response(LedgerPage(items: try await request.context.ledger(ofOrder: id),
                                                    nextCursor: nil))
        })
        router.get("/payments/ledger", policy: .accountData, admin.handler { request in
            let query = try LedgerQuery.from(request.http)
            let entries = try await request.context.ledger(from: query.from, to: query.to, after: query.position,
                                                           limit: query.page.limit + 1)
            return try JSONBody.response(LedgerPage(entries, limit: query.page.limit))
        })
        router.get("/admin/orders", policy: .accountData, admin.handler { request in
            let query = try AdminOrderQuery.from(request.http)
            return .json(.ok, OrderJSON.page(try await request.context.orders(
                query.filter, financialStatus: query.financialStatus, refundOwed: query.refundOwed,
                limit: query.page.limit, cursor: query.page.cursor)))
        })
        router.get("/admin/exports/orders", policy: .accountData, admin.streamHandler { request, use in
            let context = request.context
            let query = try ExportQuery.from(request.http)
            let filter = OrderFilter(createdFrom: query.from, createdBefore: query.to)
            return Self.csv(use, fileName: query.fileName("orders")) { writer in
                try await writer.write(OrderCSV.header)
                var cursor: String?
                repeat {
                    let page = try await context.orders(filter, financialStatus: nil, refundOwed: nil,
                                                        limit: Self.exportPage, cursor: cursor)
                    if !page.items.isEmpty { try await writer.write(page.items.map(OrderCSV.record).joined()) }
                    cursor = page.nextCursor
                } while cursor != nil
            }
        })
        router.get("/admin/exports/ledger", policy: .accountData, admin.streamHandler { request, use in
            let context = request.context
            let query = try ExportQuery.from(request.http)
            return Self.csv(use, fileName: query.fileName("ledger")) { writer in
                try await writer.write(LedgerCSV.header)
                var position: (Timestamp, Int64)?
                while true {
                    let entries = try await context.ledger(from: query.from, to: query.to, after: position,
                                                           limit: Self.exportPage)
                    if !entries.isEmpty { try await writer.write(entries.map(LedgerCSV.record).joined()) }
                    guard entries.count == Self.exportPage, let last = entries.last else { break }
                    position = (last.recordedAt, last.id)
                }
            }
        })
        router.get("/payments/refunds-owed", policy: .accountData, admin.handler { request in
            try KnownQuery.require(request.http, only: ["limit", "cursor"])
            let page = try PageRequest.from(request.http)
            let owing = try await request.context.refundsOwed(after: try RefundsOwedQuery.cursor(page),
                                                              limit: page.limit + 1)
            return try JSONBody.response(Page(readAhead: owing, limit: page.limit) { $0.id.description })
        })
        router.get("/payments/anomalies", policy: .accountData, admin.handler { request in
            let (held, cursor, page) = try AnomalyQuery.from(request.http)
            let anomalies = try await request.context.paymentAnomalies(after: cursor, held: held,
                                                                       limit: page.limit + 1)
            return try JSONBody.response(Page(readAhead: anomalies, limit: page.limit) { String($0.id) })
        })
    }

    /// Rows read from storage a page at a time while an export streams.
    static let exportPage = 200

    /// A streamed CSV answer: the rows go out a page at a time, so memory
    /// stays one page whatever the range. A failure after the first bytes
    /// can only cut the stream short (no last chunk), which a client sees
    /// as an incomplete answer, never as a complete file. It is a download
    /// (`Content-Disposition: attachment`, RFC 6266), never shown inline.
    static func csv(_ use: SessionUse<SessionContext>, fileName: String,
                    _ write: @escaping @Sendable (HTTPBodyWriter) async throws -> Void) -> HTTPResponse {
        var headers = HTTPFields()
        headers.set("Content-Type", CSV.contentType)
        headers.set("Content-Disposition", "attachment; filename=\"\(fileName)\"")
        headers.set("Cache-Control", "no-store")
        return HTTPResponse(status: .ok, headers: headers, body: .stream { writer in
            defer { use.end() }
            try await write(writer)
        })
    }
}
