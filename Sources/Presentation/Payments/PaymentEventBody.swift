import Domain
import HTTPServer

/// A provider event as it arrives: `{"id": "evt_…", "type": "…", "data":
/// {"payment_id": "…", "amount": {"amount": n, "currency": "USD"},
/// "reference": "re_…"}}` (`reference`, the provider's charge or refund id,
/// optional). Read only after its signature was checked. The envelope is
/// read first: a type this server does not handle is `unhandled`
/// (acknowledged and ignored) whatever its `data` holds, because a provider
/// retries a refused event for days; `data` is read only for the ones it handles.
struct PaymentEventBody: ProviderJSONObject {
    struct Envelope: ProviderJSONObject {
        let id: String
        let type: String
    }

    struct EventData: Decodable {
        let paymentID: String
        let amount: Money
        let reference: String?

        enum CodingKeys: String, CodingKey {
            case paymentID = "payment_id"
            case amount
            case reference
        }
    }

    let data: EventData?

    /// The event of `request`'s body.
    static func notice(from request: HTTPRequest) throws -> PaymentNotice {
        let envelope = try JSONBody.decode(Envelope.self, from: request)
        guard (1...PaymentEvent.maxIDBytes).contains(envelope.id.utf8.count) else {
            throw ValidationError([FieldError(
                field: "id", code: .invalidFormat, message: "id must be 1 to \(PaymentEvent.maxIDBytes) bytes")])
        }
        guard let type = PaymentEventType(rawValue: envelope.type) else {
            return .unhandled(id: envelope.id, type: envelope.type)
        }
        guard let data = try JSONBody.decode(PaymentEventBody.self, from: request).data else {
            throw ValidationError([FieldError(
                field: "data", code: .required, message: "data is required for \(envelope.type)")])
        }
        if let reference = data.reference, !(1...PaymentEvent.maxIDBytes).contains(reference.utf8.count) {
            throw ValidationError([FieldError(
                field: "data.reference", code: .invalidFormat,
                message: "data.reference must be 1 to \(PaymentEvent.maxIDBytes) bytes")])
        }
        // Not an id this server issues: no such payment.
        guard let paymentID = PaymentID(data.paymentID) else {
            throw EntityError.notFound(entity: "payment", id: data.paymentID)
        }
        return .event(PaymentEvent(id: envelope.id, type: type, paymentID: paymentID, amount: data.amount,
                                   reference: data.reference))
    }
}
