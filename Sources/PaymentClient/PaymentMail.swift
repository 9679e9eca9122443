import Domain
import FoundationEssentials

/// The mails a payment's changes cause, enqueued in the transaction of the
/// change when mail is on (`PaymentClient(mails:)`): money
/// received, a declined payment (with how to pay again), money given back
/// (with the amount), a manual payment awaited (with its transfer
/// reference), and, for the shop's admins, a refund owed.
public struct PaymentMail: Codable, Sendable, Hashable {
    public static let kind = JobKind("payment.mail")

    public enum Event: String, Codable, Sendable, Hashable {
        case received, failed, refunded, awaited
        case refundOwed = "refund_owed"
    }

    public let paymentID: PaymentID
    public let orderID: OrderID
    public let event: Event
    /// What moved, for `received` and `refunded`.
    public let amount: Money?

    enum CodingKeys: String, CodingKey {
        case paymentID = "payment_id"
        case orderID = "order_id"
        case event
        case amount
    }

    public init(payment: Payment, event: Event, amount: Money? = nil) {
        paymentID = payment.id
        orderID = payment.orderID
        self.event = event
        self.amount = amount
    }

    /// The mail of `announcement` (`PaymentAnnouncement` decides which changes have one).
    init(payment: Payment, announcing announcement: PaymentAnnouncement) {
        switch announcement {
        case .received(let amount, _): self.init(payment: payment, event: .received, amount: amount)
        case .declined: self.init(payment: payment, event: .failed)
        case .refunded(let amount): self.init(payment: payment, event: .refunded, amount: amount)
        case .awaited: self.init(payment: payment, event: .awaited)
        case .refundOwed: self.init(payment: payment, event: .refundOwed)
        }
    }

    /// The payload of a job of this kind.
    public init(job: Job) throws {
        self = try JSONDecoder().decode(Self.self, from: Data(job.payload))
    }

    func request(at now: Int64) throws -> JobRequest {
        JobRequest(kind: Self.kind, payload: Array(try JSONEncoder().encode(self)), runAt: now)
    }
}
