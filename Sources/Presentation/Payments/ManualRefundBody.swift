import Domain
import HTTPServer

/// `POST /orders/{id}/refunds` `{"amount": n, "reference": "…"}`: an
/// admin's record of money given back outside the provider, in minor units.
struct ManualRefundBody: Decodable {
    let amount: Int64
    let reference: String

    static func decode(from request: HTTPRequest) throws -> ManualRefundBody {
        let body = try JSONBody.decode(ManualRefundBody.self, from: request)
        try MoneyReference.validate(reference: body.reference, amount: body.amount)
        return body
    }
}
