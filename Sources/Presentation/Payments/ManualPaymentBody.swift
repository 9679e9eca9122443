import Domain
import HTTPServer

/// `POST /orders/{id}/payment` `{"status": "succeeded", "reference": "…"}`:
/// an admin's record of money received outside the provider (a bank
/// transfer). Only `succeeded` can be recorded by hand.
struct ManualPaymentBody: Decodable {
    enum Status: String, Decodable {
        case succeeded
    }

    let status: Status
    let reference: String

    /// Longest reference kept (a bank transfer's reference is far shorter).
    static let maxReferenceLength = 200

    /// The body, its reference 1–200 characters, not all spaces, no
    /// control characters.
    static func decode(from request: HTTPRequest) throws -> ManualPaymentBody {
        let body = try JSONBody.decode(ManualPaymentBody.self, from: request)
        let text = body.reference
        guard (1...maxReferenceLength).contains(text.count), text.contains(where: { !$0.isWhitespace }),
              !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw DomainError.validation(ValidationError([FieldError(
                field: "reference", code: .invalidFormat,
                message: "reference must be 1 to \(maxReferenceLength) characters without control characters")]))
        }
        return body
    }
}
