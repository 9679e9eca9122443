import Axiom
import Domain
import PaymentClient

/// The provider's side of payments: signed notifications (`POST
/// /payments/webhook`) and the expiry of unpaid orders. One instance for the
/// whole process, made by the orchestrator at start-up, because the
/// provider has no session. Coordinates payment → order → stock through
/// `CheckoutPayments`; the signature is checked by the payments client
/// (through its capability), never here.
public final class PaymentNotificationContext: Context {
    public let identity: ContextIdentity
    private let payments: ClientHandle<PaymentClient>
    private let steps: CheckoutPayments

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        payments = try creation.client(PaymentClient.self)
        steps = try CheckoutPayments(creation)
    }

    /// Whether a webhook secret is configured (start-up warns otherwise).
    public var isConfigured: Bool { payments.call { $0.settings.webhookSecret } != nil }

    /// Provider events this process kept as anomalies since start-up (`/metrics`).
    public var anomaliesKept: Int { payments.call { $0.anomaliesKept } }

    /// One provider delivery: the signature over the raw `body` is checked
    /// first (`payments_not_configured`, `invalid_signature`), then `decode`
    /// reads the event (a type this server does not handle is answered and
    /// ignored), then the payment changes once per event id and its
    /// order and stock follow. Deliveries for different payments do not
    /// queue behind each other here; the payments client decides between
    /// deliveries of one.
    public func receive(signature: String?, body: [UInt8],
                                    decode: @Sendable ([UInt8]) throws -> PaymentNotice)
        async throws -> (notice: PaymentNotice, receipt: PaymentReceipt?) {
        try payments.call { try $0.verify(signature: signature, body: body) }
        let notice = try decode(body)
        guard case .event(let event) = notice else { return (notice, nil) }
        let receipt = try await payments.call { try await $0.apply(event) }
        // Also for a duplicate: a redelivery after a failed first attempt
        // (storage gone between the payment's commit and the order's) must
        // finish the work. Every step is idempotent, so concurrent
        // deliveries of one event move the order and the stock once.
        let converged = try await steps.converge(receipt.payment,
                                                 cause: OrderChangeCause(.provider, reason: event.type.rawValue))
        return (notice, PaymentReceipt(payment: converged.payment ?? receipt.payment, effect: receipt.effect))
    }

    /// The expiry sweep: unpaid payments past `expires_at` expire and their
    /// orders are cancelled with the stock returned; then any payment left
    /// open for a while (a change whose order or stock step failed, storage
    /// being away, or its process killed) is finished. Returns how many expired.
    public func sweep() async throws -> Int {
        try await steps.sweep()
    }
}
