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

    /// The payload of a job of this kind.
    public init(job: Job) throws {
        self = try JSONDecoder().decode(Self.self, from: Data(job.payload))
    }

    func request(at now: Int64) throws -> JobRequest {
        JobRequest(kind: Self.kind, payload: Array(try JSONEncoder().encode(self)), runAt: now)
    }

    /// The mails recording `movement` on `stored` causes, which made it `next`.
    static func recorded(_ movement: MoneyMovement, on stored: Payment, making next: Payment) -> [PaymentMail] {
        var mails: [PaymentMail] = []
        switch movement.kind {
        case .charge, .manualPayment: mails.append(PaymentMail(payment: next, event: .received, amount: movement.amount))
        case .refund, .manualRefund: mails.append(PaymentMail(payment: next, event: .refunded, amount: movement.amount))
        // The bank took it back: nothing the shop did to tell the customer of.
        case .chargeback: break
        }
        if let owed = owing(next, after: stored) { mails.append(owed) }
        return mails
    }

    /// The admins' notice when a change leaves money owed back.
    static func owing(_ next: Payment, after stored: Payment) -> PaymentMail? {
        next.status == .refundPending && stored.status != .refundPending ? PaymentMail(payment: next, event: .refundOwed) : nil
    }
}
