import Domain
import HTTPServer

/// A provider event as it arrives: `{"id": "evt_…", "type": "…", "data":
/// {"payment_id": "…", "amount": {"amount": n, "currency": "USD"}}}`. Read
/// only after its signature was checked. A type this server does not handle
/// is `unhandled` (acknowledged and ignored); `data` is required only for the ones
/// it handles.
struct PaymentEventBody: Decodable {
    struct EventData: Decodable {
        let paymentID: String
        let amount: Money

        enum CodingKeys: String, CodingKey {
            case paymentID = "payment_id"
            case amount
        }
    }

    let id: String
    let type: String
    let data: EventData?

    /// The event of `request`'s body.
    static func notice(from request: HTTPRequest) throws -> PaymentNotice {
        let body = try JSONBody.decode(PaymentEventBody.self, from: request)
        guard (1...PaymentEvent.maxIDBytes).contains(body.id.utf8.count) else {
            throw DomainError.validation(ValidationError([FieldError(
                field: "id", code: .invalidFormat, message: "id must be 1 to \(PaymentEvent.maxIDBytes) bytes")]))
        }
        guard let type = PaymentEventType(rawValue: body.type) else { return .unhandled(id: body.id, type: body.type) }
        guard let data = body.data else {
            throw DomainError.validation(ValidationError([FieldError(
                field: "data", code: .required, message: "data is required for \(body.type)")]))
        }
        // Not an id this server issues: no such payment.
        guard let paymentID = PaymentID(data.paymentID) else {
            throw DomainError.notFound(entity: "payment", id: data.paymentID)
        }
        return .event(PaymentEvent(id: body.id, type: type, paymentID: paymentID, amount: data.amount))
    }
}
