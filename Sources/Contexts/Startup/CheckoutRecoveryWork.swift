import Axiom
import Domain

/// Finishes, every five seconds on one replica at a time, checkouts whose
/// lease ran out: their process died or paused longer than the lease
/// (`CheckoutRecovery.recover(.expired)`). What a lease ran out on is the
/// same for every replica, so one sweeping is enough. A checkout it could
/// not finish (a return the stock cannot take) is not the round's failure:
/// the next round takes it up again, as it takes up every one left.
public struct CheckoutRecoveryWork: JobWork {
    public static let recover = JobKind("checkouts.recover", every: .seconds(5))
    public static let kinds = [recover]

    let recovery: CheckoutRecovery

    public init(_ creation: ContextCreation) throws {
        recovery = try CheckoutRecovery(creation)
    }

    public func run(_ job: Job) async throws {
        let repair = try await recovery.recover(.expired)
        if !repair.isEmpty { JobEvents.record(repair.event("checkouts_recovered")) }
    }
}
