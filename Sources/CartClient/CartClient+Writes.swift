import Capabilities
import Domain

// The cart changes a context asks for; each answers the user's cart after.
// `unchangedFrom` (`If-Match`): the change is made only while the user's
// cart is still that cart (`precondition_failed` otherwise).

extension CartClient {
    /// Sets a line's quantity, adding the line after the others when new.
    public func setQuantity(_ user: UserID, _ product: ProductID, _ quantity: Int,
                            unchangedFrom: Cart? = nil) async throws -> Cart {
        try await write(user, unchangedFrom: unchangedFrom) { cart, handle in
            try (CartWrite.setQuantity(quantity, of: product, in: cart, handle), true)
        }
    }

    public func remove(_ user: UserID, _ product: ProductID, unchangedFrom: Cart? = nil) async throws -> Cart {
        try await write(user, unchangedFrom: unchangedFrom) { cart, handle in
            try (CartWrite.remove(product, from: cart, handle), true)
        }
    }

    public func clear(_ user: UserID) async throws -> Cart {
        try await write(user, unchangedFrom: nil) { cart, handle in try (CartWrite.clear(cart, handle), true) }
    }

    /// Takes a finished checkout's ordered lines out of the user's cart
    /// (`Cart.removingOrdered`: what was changed since the checkout read the
    /// cart stays), once per checkout: the checkout id is recorded in the
    /// same transaction, so a repeat (start-up reconciliation after a crash)
    /// leaves a cart refilled since untouched.
    public func clearAfterCheckout(_ user: UserID, _ checkoutID: CheckoutID, ordered: [CartLine]) async throws -> Cart {
        try await write(user, unchangedFrom: nil) { cart, handle in
            try CartWrite.clearAfterCheckout(checkoutID, ordered: ordered, from: cart, handle)
        }
    }

    /// One change of `user`'s cart, `change` run in its write transaction
    /// on the stored cart (it answers the cart after and whether it changed
    /// storage). One user's changes are made one after another, each from
    /// the cart the previous one left; different users' changes still run
    /// at once (and are committed together).
    private func write(_ user: UserID, unchangedFrom: Cart?,
                       _ change: @escaping @Sendable (Cart, any StorageHandle) throws -> (Cart, Bool)) async throws -> Cart {
        await enterTurn(for: user)
        defer { leaveTurn(for: user) }
        let started = cache.start(of: user)
        let kept = cache.held(user)
        let ((cart, applied, version), sequence) = try await storage.sequencedWrite { handle in
            let (cart, applied, version) = try CartWrite.run(user, unchangedFrom: unchangedFrom, handle, kept: kept,
                                                             change)
            // Other replicas' working sets and /events follow this row.
            if applied { try handle.recordChange(ChangeRecord(kind: .cart, key: user.description, userID: user.description)) }
            return (cart, applied, version)
        }
        _ = cache.applyCommitted([KeptCart(user, cart, version: version)], startedAt: started)
        if applied, let sequence { stateBroadcaster.publish(.changed(cart, sequence: sequence), key: user) }
        return cart
    }
}
