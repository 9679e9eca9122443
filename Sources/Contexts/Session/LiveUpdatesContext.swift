import Axiom
import CartClient
import Domain
import OrderClient
import PaymentClient
import UserClient

/// A session's live updates (`GET /events`): the signed-in user's cart and
/// order changes as they happen, made by any session of theirs (or an
/// admin), on this process or another (the clients publish other
/// replicas' changes from the change feed). Each event's id is its change's
/// outbox sequence, so a reconnect resumes on any process and after a
/// restart: the outbox says what changed after the id. Its downstream cart context prices
/// a changed cart as `GET /cart` does. The observation stops when the
/// session ends (sign-out, or its token revoked or expired anywhere) or the
/// context is released with its session.
public actor LiveUpdatesContext: Context {
    public static var downstreamTypes: [any Context.Type] { [CartContext.self] }

    /// Events a stream may hold unsent before it ends (the client resumes).
    public static let streamCapacity = 256

    public nonisolated let identity: ContextIdentity
    private nonisolated let users: ClientHandle<UserClient>
    nonisolated let carts: ClientHandle<CartClient>
    nonisolated let orders: ClientHandle<OrderClient>
    nonisolated let payments: CheckoutPayments
    private var journal = LiveUpdateJournal(capacity: LiveUpdatesContext.streamCapacity)
    private var observations: [Task<Void, Never>] = []
    /// Set once the session's end was heard: no new stream opens after it.
    private var ended = false

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        users = try creation.client(UserClient.self)
        carts = try creation.client(CartClient.self)
        orders = try creation.client(OrderClient.self)
        payments = try CheckoutPayments(creation)
    }

    /// The caller's changes after what `lastEventID` (an outbox sequence)
    /// saw, then live. The first call starts observing the cart, order and
    /// user clients. Storage unavailable for the replay: 503.
    public func liveUpdates(for caller: Authentication, after lastEventID: String?) async throws -> LiveSubscription {
        guard !ended else { throw AuthenticationError.invalidToken }
        if observations.isEmpty { observe(caller.user.id, sessionID: caller.sessionID) }
        // Subscribed before the outbox is read: a change committed after the
        // read's head is in the stream, one at or below it in the replay.
        // Filtered by the change's sequence, not the id sent: a follower
        // behind here may append an older change late (without an id), and
        // the replay already showed it (EventResumeTests caught one).
        let (subscriber, stream) = journal.subscribe { [weak self] id in
            Task { await self?.unsubscribe(id) }
        }
        guard let lastEventID, !lastEventID.isEmpty else {
            return LiveSubscription(replay: [], mustRefetch: false, events: stream.filter { _ in true })
        }
        var resumed: LiveReplay?
        do {
            if let sequence = Int64(lastEventID) { resumed = try await replay(for: caller.user.id, after: sequence) }
        } catch {
            journal.unsubscribe(subscriber)
            throw error
        }
        guard let resumed else {
            return LiveSubscription(replay: [], mustRefetch: true, events: stream.filter { _ in true })
        }
        let through = resumed.through
        return LiveSubscription(replay: resumed.events, mustRefetch: false,
                                events: stream.filter { event in event.sequence.map { $0 > through } ?? true })
    }

    /// Live streams open on this session now.
    public var liveSubscriberCount: Int { journal.subscriberCount }

    public func stopObservation() async {
        endLiveUpdates()
    }

    /// Ends every live stream of this session and stops observing for them.
    private func endLiveUpdates() {
        for task in observations { task.cancel() }
        observations = []
        journal.finishAll()
    }

    private func observe(_ userID: UserID, sessionID: String) {
        // Keyed: this context hears its user's changes and its session's
        // end, not every other user's, so a write costs no more with many
        // streams open. Lossless: a stream that falls a whole buffer behind
        // ends instead of dropping an update, and is replaced after a reset
        // (the client must fetch again; the stream must never look complete
        // when it is not).
        let carts = self.carts.client.stateBroadcaster
        let orders = self.orders.client.stateBroadcaster
        let payments = self.payments
        let cartUpdates = carts.subscribeLossless(key: userID)
        let orderUpdates = orders.subscribeLossless(key: userID)
        let userUpdates = users.client.stateBroadcaster.subscribe(key: sessionID)
        let paymentUpdates = payments.updates(of: userID)
        observations = [
            Task { [weak self] in
                var updates = cartUpdates
                while true {
                    for await case .changed(let cart, let sequence) in updates where cart.userID == userID {
                        await self?.record(cart, sequence: sequence)
                    }
                    guard await self?.fellBehind(carts.isFinished, "cart") == true else { return }
                    updates = carts.subscribeLossless(key: userID)
                }
            },
            Task { [weak self] in
                var updates = orderUpdates
                while true {
                    for await update in updates {
                        switch update {
                        case .created(let order, let sequence) where order.userID == userID:
                            await self?.record(.orderCreated(order), sequence: sequence)
                        case .changed(let order, let sequence) where order.userID == userID:
                            await self?.recordChange(of: order, sequence: sequence)
                        default:
                            continue
                        }
                    }
                    guard await self?.fellBehind(orders.isFinished, "orders") == true else { return }
                    updates = orders.subscribeLossless(key: userID)
                }
            },
            Task { [weak self] in
                // Only a change its order does not follow (a refund, a late
                // success on a cancelled order): the others reach the stream
                // with the order's own change, which comes after the payment's.
                for await update in paymentUpdates {
                    switch update {
                    case .changed(let payment, let previous, let sequence)
                    where payment.userID == userID && payment.status.orderFollows == previous.orderFollows:
                        await self?.record(payment, sequence: sequence)
                    case .changedElsewhere(let payment, let sequence) where payment.userID == userID:
                        await self?.record(payment, sequence: sequence)
                    default:
                        continue
                    }
                }
            },
            // Sign-out here, a token revoked elsewhere (the user suspended)
            // or swept at its expiry must not keep a stream of this user's
            // data open.
            Task { [weak self] in
                for await case .sessionEnded(sessionID) in userUpdates {
                    await self?.sessionEnded()
                    return
                }
            },
        ]
    }

    /// An observation's stream ended. Unless the observation is over (the
    /// task cancelled, the client shut down), it fell a buffer behind: a
    /// reset goes out and the caller subscribes again.
    private func fellBehind(_ clientFinished: Bool, _ what: String) -> Bool {
        if Task.isCancelled || clientFinished || ended { return false }
        journal.append(.reset(reason: "too many \(what) changes at once to send each; fetch the cart and orders again"), sequence: nil)
        return true
    }

    private func sessionEnded() {
        ended = true
        endLiveUpdates()
    }

    private func record(_ cart: Cart, sequence: Int64) async {
        // Priced as GET /cart prices it. A cart that cannot be priced (a
        // currency mismatch would be a bug, storage unavailable for a
        // product not in the catalogue's working set) is not sent wrong,
        // and not dropped in silence either (the stream would look
        // complete and the client's cart stay stale): a reset says so.
        guard let quote = try? await downstream(CartContext.self).quote(cart) else {
            journal.append(.reset(reason: "a cart change could not be priced; fetch the cart again"), sequence: nil)
            return
        }
        journal.append(.cartChanged(quote), sequence: sequence)
    }

    private func record(_ payment: Payment, sequence: Int64?) async {
        // The order cannot be read now (storage away): a reset, as for a
        // cart that cannot be priced.
        guard let order = try? await payments.withPayment(payment) else {
            journal.append(.reset(reason: "an order change could not be read; fetch the orders again"), sequence: nil)
            return
        }
        journal.append(.orderChanged(order), sequence: sequence)
    }

    /// An order change as GET /orders/{id} shows it: with its payment, read
    /// now (a payment moves before its order, so this is the one that moved it).
    private func recordChange(of order: Order, sequence: Int64) async {
        let payment = try? await payments.withPayment(order)
        journal.append(.orderChanged(payment ?? OrderWithPayment(order: order, payment: nil)), sequence: sequence)
    }

    private func record(_ update: LiveUpdate, sequence: Int64) {
        journal.append(update, sequence: sequence)
    }

    private func unsubscribe(_ id: UInt64) {
        journal.unsubscribe(id)
    }
}
