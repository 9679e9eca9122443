import Axiom
import Domain

/// Expires unpaid payments past their deadline (their orders cancelled,
/// their stock returned) and finishes any payment change left open,
/// every half second on one replica at a time: one probe of the
/// `(status, expires_at)` index when nothing is due, and an order is
/// cancelled within about half a second of its `expires_at`. Cluster-wide
/// work (every replica would find the same payments), so a periodic job.
public struct PaymentExpiryWork: JobWork {
    public static let expire = JobKind("payments.expire", every: .milliseconds(500))
    public static let kinds = [expire]

    let steps: CheckoutPayments

    public init(_ creation: ContextCreation) throws {
        steps = try CheckoutPayments(creation)
    }

    public func run(_ job: Job) async throws {
        let expired = try await steps.sweep()
        if expired > 0 { JobEvents.record(JobEvent("payments_expired", numbers: [("payments", expired)])) }
    }
}
