import Domain
import HTTPServer

/// `POST /orders/{id}/payment` `{"status": "succeeded", "reference": "…",
/// "amount": n}`: an admin's record of money received outside the provider
/// (a bank transfer); `amount` in minor units, the payment's when absent.
/// Only `succeeded` can be recorded by hand.
struct ManualPaymentBody: Decodable {
    enum Status: String, Decodable, CaseIterable {
        case succeeded
    }

    let status: Status
    let reference: String
    let amount: Int64?

    enum CodingKeys: String, CodingKey {
        case status, reference, amount
    }

    /// `amount` may be left out, but a null is refused (422 on `amount`),
    /// as the document's integer says.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = try container.decode(Status.self, forKey: .status)
        reference = try container.decode(String.self, forKey: .reference)
        amount = container.contains(.amount) ? try container.decode(Int64.self, forKey: .amount) : nil
    }

    static func decode(from request: HTTPRequest) throws -> ManualPaymentBody {
        let body = try JSONBody.decode(ManualPaymentBody.self, from: request)
        try MoneyReference.validate(reference: body.reference, amount: body.amount)
        return body
    }
}
