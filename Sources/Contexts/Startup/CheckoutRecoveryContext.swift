import Axiom
import Domain

/// The repair of checkouts a crash (or a pause longer than their lease)
/// interrupted. One instance for the whole process, made by the
/// orchestrator at start-up; it touches the catalogue, orders, carts and
/// payments the way `CheckoutContext` and `CheckoutPayments` would have,
/// each step idempotent, so a repair interrupted in turn is finished later.
///
/// Several processes may share the database, each running checkouts under
/// its lease (`CheckoutLease`: the process's name and a length). Recovery
/// touches only what no live process is working on: a reservation or an
/// open order whose lease ran out, and, at start-up, the ones this process
/// held in its previous life (nobody else finishes those sooner). So a
/// restart costs what that replica left, never what the others are doing.
public final class CheckoutRecoveryContext: Context {
    public let identity: ContextIdentity
    private let recovery: CheckoutRecovery

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        recovery = try CheckoutRecovery(creation)
    }

    /// What one round of recovery did; `failed` counts the checkouts and
    /// orders it could not finish this time (the next round tries again),
    /// `failures` describes the first few.
    public struct Repair: Sendable, Equatable {
        public var committed = 0, released = 0, refused = 0, paymentsOpened = 0, cartsCleared = 0, settled = 0
        public var failed = 0
        public var failures: [String] = []

        public var isEmpty: Bool { self == Repair() }

        /// The round as a log event named `name`: its counts, and the
        /// first failures (a warning) when some were left for the next round.
        public func event(_ name: String) -> JobEvent {
            JobEvent(name, fields: failed > 0 ? [("failures", failures.joined(separator: "; "))] : [],
                     numbers: [("committed", committed), ("released", released), ("refused", refused),
                               ("payments_opened", paymentsOpened), ("carts_cleared", cartsCleared),
                               ("orders_settled", settled), ("failed", failed)],
                     warns: failed > 0)
        }

        mutating func fail(_ error: any Error) {
            failed += 1
            if failures.count < 3 { failures.append(String(describing: error)) }
        }
    }

    /// Which checkouts a round of recovery may touch.
    public enum Scope: Sendable {
        /// Every unfinished one: the process starting on a database no
        /// other process writes (SQLite).
        case everything
        /// At start-up beside other replicas: what this process's previous
        /// life held (whatever its lease's time) and what any process left
        /// with its lease run out.
        case ownOrExpired
        /// The periodic sweep: what has its lease run out. A checkout whose
        /// payment could not be opened (storage away for a moment) is
        /// finished here, a lease's length later, not at the next restart.
        case expired
    }

    /// One round of recovery over `scope` (`CheckoutRecovery.recover`): at
    /// start-up, before the first request; the periodic sweep of expired
    /// leases is a job (`CheckoutRecoveryWork`).
    public func recover(_ scope: Scope) async throws -> Repair {
        try await recovery.recover(scope)
    }
}
