/// The owned state of `PaymentClient`. Like orders, payments are read from
/// SQLite per request through indexes and none is kept in memory (a shop's
/// payments grow with its history), so the state holds only what
/// the client learnt about its own work: the payments it changed since
/// start-up, by outcome, for the component metrics.
public struct PaymentState: Sendable, Equatable {
    public private(set) var changes: [PaymentStatus: Int] = [:]

    public init() {}

    public mutating func record(_ status: PaymentStatus) {
        changes[status, default: 0] += 1
    }
}
