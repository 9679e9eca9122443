import Axiom
import Domain
import OrderClient
import PaymentClient

/// `order.created` and `order.updated` on `/events`: the user's orders as
/// `GET /orders/{id}` shows them (with their payment), placed or moved by
/// any session of theirs, an admin, the payment provider or another replica.
public struct OrderLiveFeature: LiveFeature {
    public static let created = "order.created"
    public static let updated = "order.updated"

    private let orders: ClientHandle<OrderClient>
    private let payments: CheckoutPayments

    public init(_ creation: ContextCreation) throws {
        orders = try creation.client(OrderClient.self)
        payments = try CheckoutPayments(creation)
    }

    public func observe(_ user: UserID, into sink: LiveSink) -> Task<Void, Never> {
        let changes = sink.subscribe(orders.updates, of: user, what: "order")
        let paymentUpdates = payments.updates(of: user)
        return Task { [payments] in
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    await changes.run { update in
                        switch update {
                        case .created(let order, let sequence) where order.userID == user:
                            await sink.send(LiveUpdate(kind: Self.created, payload: order), sequence: sequence)
                        case .changed(let order, let sequence) where order.userID == user:
                            // With its payment, read now (a payment moves
                            // before its order, so this is the one that moved it).
                            let payment = try? await payments.withPayment(order)
                            let shown = payment ?? OrderWithPayment(order: order, payment: nil)
                            await sink.send(LiveUpdate(kind: Self.updated, payload: shown), sequence: sequence)
                        default:
                            break
                        }
                    }
                }
                group.addTask {
                    // Only a change its order does not follow (a refund, a
                    // late success on a cancelled order): the others reach
                    // the stream with the order's own change, which comes
                    // after the payment's.
                    for await update in paymentUpdates {
                        switch update {
                        case .changed(let payment, let previous, let sequence)
                        where payment.userID == user && payment.status.orderFollows == previous.orderFollows:
                            await Self.send(payment, sequence: sequence, payments, to: sink)
                        case .changedElsewhere(let payment, let sequence) where payment.userID == user:
                            await Self.send(payment, sequence: sequence, payments, to: sink)
                        default:
                            continue
                        }
                    }
                }
            }
        }
    }

    /// Each order changed in the range once, `order.updated` with its
    /// payment, whether the order or only its payment changed.
    public func replay(of user: UserID, after: Int64, through: Int64) async throws -> [LiveEvent] {
        var changed = try await orders.call { try await $0.orderChanges(of: user, after: after, through: through) }
        let paid = try await payments.payments.call { try await $0.paymentChanges(of: user, after: after, through: through) }
        changed.merge(paid) { max($0, $1) }
        var events: [LiveEvent] = []
        for (id, sequence) in changed.sorted(by: { $0.value < $1.value }) {
            let order = try await payments.withPayment(try await orders.call { try await $0.order(id) })
            events.append(LiveEvent(id: sequence, update: LiveUpdate(kind: Self.updated, payload: order),
                                    sequence: sequence))
        }
        return events
    }

    /// The payment's order cannot be read now (storage away): a reset, as
    /// for a cart that cannot be priced.
    private static func send(_ payment: Payment, sequence: Int64?, _ payments: CheckoutPayments,
                             to sink: LiveSink) async {
        guard let order = try? await payments.withPayment(payment) else {
            await sink.send(.reset(reason: "an order change could not be read; fetch the orders again"), sequence: nil)
            return
        }
        await sink.send(LiveUpdate(kind: updated, payload: order), sequence: sequence)
    }
}
