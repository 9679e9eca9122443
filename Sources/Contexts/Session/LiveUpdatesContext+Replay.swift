import Domain

/// Resuming a stream from a `Last-Event-ID`: the change outbox, not this
/// process, knows what happened since, so the same id resumes on any
/// replica and after a restart.
extension LiveUpdatesContext {
    /// The current cart (if it changed) and each order that changed after
    /// `sequence`, read from storage up to the outbox head of one snapshot;
    /// nil when the outbox cannot tell (the id is pruned or from its future).
    func replay(for user: UserID, after sequence: Int64) async throws -> LiveReplay? {
        let cart = try await carts.client.cartChange(of: user, after: sequence)
        guard cart.resumable else { return nil }
        var orders = try await self.orders.client.orderChanges(of: user, after: sequence, through: cart.through)
        let paid = try await payments.payments.client.paymentChanges(of: user, after: sequence, through: cart.through)
        orders.merge(paid) { max($0, $1) }
        var events: [LiveEvent] = []
        if let changed = cart.sequence, let current = cart.cart {
            // Not priceable (as for a live change): a reset, not a wrong cart.
            if let quote = try? await downstream(CartContext.self).quote(current) {
                events.append(LiveEvent(id: changed, update: .cartChanged(quote), sequence: changed))
            } else {
                events.append(LiveEvent(id: nil, update: .reset(reason: "a cart change could not be priced; fetch the cart again"),
                                        sequence: nil))
            }
        }
        for (id, changed) in orders.sorted(by: { $0.value < $1.value }) {
            let order = try await self.orders.client.order(id)
            events.append(LiveEvent(id: changed, update: .orderChanged(try await payments.withPayment(order)), sequence: changed))
        }
        // A reset first, then the changes in sequence order.
        events.sort { ($0.id ?? 0) < ($1.id ?? 0) }
        return LiveReplay(events: events, through: cart.through)
    }
}
