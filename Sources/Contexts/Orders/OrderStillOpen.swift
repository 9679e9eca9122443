import Domain
import FoundationEssentials

/// Work about an order asked for before its checkout or cancellation
/// finished (its mail, its webhook event): the job waits and looks again,
/// soon at first (a checkout settles within milliseconds of its answer),
/// then less often, half the job's age up to a minute (recovery finishes a
/// checkout whose process died once its lease runs out).
struct OrderStillOpen: JobSnooze, CustomStringConvertible {
    let order: OrderID
    let delayMilliseconds: Int64

    init(order: OrderID, enqueuedAt: Int64) {
        self.order = order
        let age = Int64(Date().timeIntervalSince1970 * 1000) - enqueuedAt
        delayMilliseconds = min(60_000, max(20, age / 2))
    }

    var description: String { "order \(order) is still open (its checkout or cancellation has not finished)" }
}
