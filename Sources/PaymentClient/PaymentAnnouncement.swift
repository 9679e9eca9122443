import Capabilities
import Domain

/// What a payment's change tells those outside the shop's database,
/// decided once for both ways of telling: the customer's and the admins'
/// mails (`PaymentMail`) and the merchant's webhook events
/// (`PaymentWebhookEvents`). Each way picks the announcements it has a
/// message for.
enum PaymentAnnouncement: Hashable, Sendable {
    /// Money came in; `paidOrder` when this movement made the payment
    /// paid (a partial bank transfer does not, nor a late payment the
    /// shop owes back).
    case received(Money, paidOrder: Bool)
    /// The provider declined; the payment stays payable.
    case declined
    case refunded(Money)
    /// A manual payment (bank transfer) opened and waits for the money.
    case awaited
    /// The change left money owed back.
    case refundOwed

    /// What recording `movement` on `stored` announces, which made it `next`.
    static func recorded(_ movement: MoneyMovement, on stored: Payment, making next: Payment) -> [PaymentAnnouncement] {
        var announced: [PaymentAnnouncement] = []
        switch movement.kind {
        case .charge, .manualPayment:
            announced.append(.received(movement.amount,
                                       paidOrder: next.status == .succeeded && stored.status != .succeeded))
        case .refund, .manualRefund: announced.append(.refunded(movement.amount))
        // The bank took it back: nothing the shop did to tell of.
        case .chargeback: break
        }
        if let owed = owing(next, after: stored) { announced.append(owed) }
        return announced
    }

    /// `refundOwed` when a change leaves money owed back that was not before.
    static func owing(_ next: Payment, after stored: Payment) -> PaymentAnnouncement? {
        next.status == .refundPending && stored.status != .refundPending ? .refundOwed : nil
    }
}

/// Enqueues announcements in the caller's write transaction, as mails when
/// mail is on and as webhook events when webhooks are.
struct PaymentAnnouncer: Sendable {
    let mails: Bool
    let webhooks: Bool

    func enqueue(_ announced: [PaymentAnnouncement], of payment: Payment, at now: Int64,
                 on handle: any StorageHandle) throws {
        for announcement in announced {
            if mails { try handle.enqueue(try PaymentMail(payment: payment, announcing: announcement).request(at: now)) }
            if webhooks, let event = PaymentWebhookEvents.event(announcement, of: payment, at: now) {
                try handle.enqueue(try event.request())
            }
        }
    }
}
