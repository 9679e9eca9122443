import Domain
import HTTPServer

/// `POST /checkout`'s optional body `{"payment_method": "provider" |
/// "bank_transfer"}`: no body (or no member) is the provider.
struct CheckoutBody: Decodable {
    enum Method: String, Decodable {
        case provider
        case bankTransfer = "bank_transfer"
    }

    let paymentMethod: Method?

    enum CodingKeys: String, CodingKey {
        case paymentMethod = "payment_method"
    }

    /// The method `request` chose.
    static func paymentMethod(_ request: HTTPRequest) throws -> PaymentMethod {
        guard !request.body.isEmpty else { return .provider }
        switch try JSONBody.decode(CheckoutBody.self, from: request).paymentMethod {
        case nil, .provider: return .provider
        case .bankTransfer: return .bankTransfer
        }
    }
}
