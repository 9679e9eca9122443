import Domain
import HTTPServer

/// `GET /payments/anomalies?held=…&limit=…&cursor=…`: a `Page` of the
/// provider refunds and chargebacks the ledger could not take, oldest
/// first; `held=true` keeps those not applied since. The cursor is the last
/// anomaly's id.
enum AnomalyQuery {
    /// The query's `held` (false when absent) and cursor; every bad one is
    /// `validation_failed` naming it.
    static func from(_ request: HTTPRequest) throws -> (held: Bool, cursor: Int64?, page: PageRequest) {
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
        guard errors.isEmpty else { throw ValidationError(errors) }
        return (held, cursor, page)
    }
}
