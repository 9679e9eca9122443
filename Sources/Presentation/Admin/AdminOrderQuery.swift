import Domain
import HTTPServer

/// `GET /admin/orders?status=…&financial_status=…&refund_owed=…&customer=…
/// &from=…&to=…&limit=…&cursor=…`: every filter optional; `from` and `to`
/// (RFC 3339) bound `created_at` to `[from, to)`; the cursor is the
/// previous page's `next_cursor`. Every bad parameter is listed; no other
/// parameter is taken.
struct AdminOrderQuery {
    let filter: OrderFilter
    let financialStatus: FinancialStatus?
    let refundOwed: Bool?
    let page: PageRequest

    static func from(_ request: HTTPRequest) throws -> AdminOrderQuery {
        try KnownQuery.require(request, only: ["status", "financial_status", "refund_owed", "customer", "from", "to",
                                               "limit", "cursor"])
        let page = try PageRequest.from(request)
        var errors: [FieldError] = []
        func parse<T>(_ name: String, _ expected: String, _ read: (String) -> T?) -> T? {
            guard let text = request.query[name] else { return nil }
            guard let value = read(text) else {
                errors.append(FieldError(field: name, code: .invalidFormat, message: "\(name) must be \(expected)"))
                return nil
            }
            return value
        }
        let status = parse("status", "one of \(OrderStatus.allCases.map(\.rawValue).joined(separator: ", "))") {
            OrderStatus(rawValue: $0)
        }
        let financial = parse("financial_status", "one of \(FinancialStatus.allCases.map(\.rawValue).joined(separator: ", "))") {
            FinancialStatus(rawValue: $0)
        }
        let owed = parse("refund_owed", "true or false") { ["true": true, "false": false][$0] }
        let customer = parse("customer", "a user id") { UserID($0) }
        let from = parse("from", "an RFC 3339 time") { Timestamp(rfc3339: $0) }
        let to = parse("to", "an RFC 3339 time") { Timestamp(rfc3339: $0) }
        guard errors.isEmpty else { throw ValidationError(errors) }
        return AdminOrderQuery(filter: OrderFilter(status: status, userID: customer, createdFrom: from, createdBefore: to),
                               financialStatus: financial, refundOwed: owed, page: page)
    }
}
