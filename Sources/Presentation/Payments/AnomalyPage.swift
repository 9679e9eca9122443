import Domain
import HTTPServer

/// `GET /payments/anomalies?held=…&limit=…&cursor=…`: `{items, next_cursor}`
/// of the provider refunds and chargebacks the ledger could not take, oldest
/// first; `held=true` keeps those not applied since. The cursor is the last
/// anomaly's id.
struct AnomalyPage: Encodable {
    let items: [PaymentAnomaly]
    let nextCursor: String?

    enum CodingKeys: String, CodingKey {
        case items
        case nextCursor = "next_cursor"
    }

    /// A page of `limit` from up to `limit + 1` anomalies read.
    init(_ anomalies: [PaymentAnomaly], limit: Int) {
        items = Array(anomalies.prefix(limit))
        nextCursor = anomalies.count > limit ? items.last.map { String($0.id) } : nil
    }

    /// The query's `held` (false when absent) and cursor; every bad one is
    /// `validation_failed` naming it.
    static func query(_ request: HTTPRequest) throws -> (held: Bool, cursor: Int64?, page: PageRequest) {
        try KnownQuery.require(request, only: ["held", "limit", "cursor"])
        let page = try PageRequest.from(request)
        var errors: [FieldError] = []
        var held = false
        if let text = request.query["held"] {
            if let value = ["true": true, "false": false][text] { held = value } else {
                errors.append(FieldError(field: "held", code: .invalidFormat, message: "held must be true or false"))
            }
        }
        var cursor: Int64?
        if let text = page.cursor {
            if let value = Int64(text), value > 0 { cursor = value } else {
                errors.append(FieldError(field: "cursor", code: .invalidFormat,
                                         message: "cursor is not one this service issued"))
            }
        }
        guard errors.isEmpty else { throw DomainError.validation(ValidationError(errors)) }
        return (held, cursor, page)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(nextCursor, forKey: .nextCursor)
    }
}
