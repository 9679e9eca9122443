import Axiom
import Domain
import MailClient
import OrderClient
import PaymentClient
import UserClient

/// The customer's mails about an order and its payment, and the admins'
/// notice of a refund owed: the work of the `order.mail` and
/// `payment.mail` jobs the orders and payments clients enqueue with their
/// changes. Each mail is rendered with the order as `GET /orders/{id}`
/// shows it (with its payment), read when the mail goes.
///
/// Whether a mail still applies is decided here, when it goes:
/// - an order's mails wait until its checkout has finished (the order
///   settled), so a checkout rolled back after its order was written, the
///   stock sold meanwhile, sends neither "placed" nor "cancelled";
/// - a customer who deleted their account is sent nothing.
/// The `Message-ID` is the job's, so a mail sent again after a lost reply
/// is the same message to its reader's client.
public struct OrderMails: JobWork {
    public static let kinds = [OrderMail.kind, PaymentMail.kind]

    private let orders: ClientHandle<OrderClient>
    private let settled: SettledOrders
    private let payments: ClientHandle<PaymentClient>
    private let users: ClientHandle<UserClient>
    private let mail: ClientHandle<MailClient>

    public init(_ creation: ContextCreation) throws {
        orders = try creation.client(OrderClient.self)
        settled = SettledOrders(orders: orders)
        payments = try creation.client(PaymentClient.self)
        users = try creation.client(UserClient.self)
        mail = try creation.client(MailClient.self)
    }

    public func run(_ job: Job) async throws {
        switch job.kind {
        case OrderMail.kind.name:
            let notice = try JobPayload.decode(job) { try OrderMail(job: $0) }
            try await send(notice.event.rawValue, about: notice.orderID, job: job)
        case PaymentMail.kind.name:
            let notice = try JobPayload.decode(job) { try PaymentMail(job: $0) }
            if notice.event == .refundOwed {
                try await sendAdmins("refund_owed", about: notice.orderID, job: job)
            } else {
                try await send("payment_\(notice.event.rawValue)", about: notice.orderID, amount: notice.amount, job: job)
            }
        default:
            throw JobPayload.Unreadable(kind: job.kind, detail: "not a kind of \(Self.self)")
        }
    }

    /// The customer's mail `order/<template>`.
    private func send(_ template: String, about id: OrderID, amount: Money? = nil, job: Job) async throws {
        guard let order = try await settled.read(id, for: job) else { return }
        let user: User
        do {
            user = try await users.call { try await $0.user(order.userID) }
        } catch let error as EntityError {
            guard case .notFound = error else { throw error }
            return
        }
        // A deleted account keeps its row, anonymised, for its orders.
        guard !user.isDeleted else { return }
        let values = try await values(order, amount: amount, recipient: user.name)
        _ = try await mail.call {
            try await $0.send(MailRequest(template: "order/\(template)", to: user.email.description, toName: user.name,
                                          values: values, messageID: job.mailMessageID))
        }
    }

    /// The admins' notice `admin/<template>`, when an admin address is set.
    private func sendAdmins(_ template: String, about id: OrderID, job: Job) async throws {
        guard let admins = mail.call({ $0.site.adminAddress }) else { return }
        let order = try await orders.call { try await $0.order(id) }
        let values = try await values(order, amount: nil, recipient: nil)
        _ = try await mail.call {
            try await $0.send(MailRequest(template: "admin/\(template)", to: admins, values: values,
                                          messageID: job.mailMessageID))
        }
    }

    private func values(_ order: Order, amount: Money?, recipient: String?) async throws -> [UInt8] {
        let payment = try await payments.call { try await $0.payment(forOrder: order.id) }
        let site = mail.call { $0.site }
        var values = try MailValues(site: site)
        try values.add("order", OrderWithPayment(order: order, payment: payment))
        if let amount { try values.add("amount", amount) }
        if let recipient { try values.add("name", recipient) }
        try values.add("links", ["order": site.link("/orders/\(order.id)")])
        return values.json
    }
}
