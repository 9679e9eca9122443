/// An order as its owner sees it: the order and its payment (nil for an
/// order placed before payments existed).
public struct OrderWithPayment: Hashable, Sendable {
    public let order: Order
    public let payment: Payment?

    public init(order: Order, payment: Payment?) {
        self.order = order
        self.payment = payment
    }
}
