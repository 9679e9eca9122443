import Domain
import HTTPServer

/// `POST /checkout`'s optional body `{"payment_method": "provider" |
/// "bank_transfer", "shipping_address": {…}}`: no body (or no member) is
/// the provider and no address.
struct CheckoutBody: Decodable {
    enum Method: String, Decodable, CaseIterable {
        case provider
        case bankTransfer = "bank_transfer"
    }

    let paymentMethod: Method?
    let shippingAddress: ShippingAddress?

    enum CodingKeys: String, CodingKey {
        case paymentMethod = "payment_method"
        case shippingAddress = "shipping_address"
    }

    /// The method `request` chose and its address (validated, fields as
    /// `shipping_address.…`).
    static func decode(_ request: HTTPRequest) throws -> (PaymentMethod, ShippingAddress?) {
        guard !request.body.isEmpty else { return (.provider, nil) }
        let body = try JSONBody.decode(CheckoutBody.self, from: request)
        if let error = body.shippingAddress?.validate() {
            var prefixed = ValidationError()
            prefixed.merge(error, prefix: "shipping_address")
            throw prefixed
        }
        switch body.paymentMethod {
        case nil, .provider: return (.provider, body.shippingAddress)
        case .bankTransfer: return (.bankTransfer, body.shippingAddress)
        }
    }
}
