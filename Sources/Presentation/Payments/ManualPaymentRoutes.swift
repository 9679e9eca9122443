import Contexts
import Domain
import HTTPServer

/// `POST /orders/{id}/payment` `{"status": "succeeded", "reference": "…"}`:
/// an admin records money received outside the provider (a bank
/// transfer). Bound to the session's AccountContext, which checks the role.
public enum ManualPaymentRoutes {
    public static let name = "ManualPaymentRoutes"

    /// Longest reference kept (a bank transfer's reference is far shorter).
    static let maxReferenceLength = 200

    struct ManualPaymentBody: Decodable {
        /// Only `succeeded` can be recorded by hand.
        enum Status: String, Decodable {
            case succeeded
        }

        let status: Status
        let reference: String
    }

    public static func register(on router: inout Router, sessions: SessionResolver) {
        router.post("/orders/{id}/payment") { request in
            try await ErrorResponses.handling {
                try JSONBody.response(try await sessions.withAccount(request) { account, _ in
                    let body = try JSONBody.decode(ManualPaymentBody.self, from: request)
                    let reference = try checkedReference(body.reference)
                    return try await account.recordManualPayment(try OrderRoutes.orderID(request), reference: reference)
                })
            }
        }
    }

    /// 1–200 characters, not all spaces, no control characters.
    private static func checkedReference(_ text: String) throws -> String {
        guard (1...maxReferenceLength).contains(text.count), text.contains(where: { !$0.isWhitespace }),
              !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw DomainError.validation(ValidationError([FieldError(
                field: "reference", code: .invalidFormat,
                message: "reference must be 1 to \(maxReferenceLength) characters without control characters")]))
        }
        return text
    }
}
