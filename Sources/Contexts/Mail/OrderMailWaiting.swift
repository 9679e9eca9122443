import Domain

/// An order's mail asked for before its checkout or cancellation finished:
/// the job is tried again later, by when recovery has finished it at the
/// latest.
struct OrderMailWaiting: Error, CustomStringConvertible {
    let order: OrderID
    var description: String { "order \(order) is still open (its checkout or cancellation has not finished)" }
}
