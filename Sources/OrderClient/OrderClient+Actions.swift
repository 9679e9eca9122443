import Axiom
import Domain

// What a context asks of the orders; each answers the order as it is after.

extension OrderClient {
    /// A pending order for a checkout; idempotent by checkout id and by the
    /// user's idempotency key (the existing order is answered).
    public struct Place: ClientAction {
        let checkoutID: CheckoutID, userID: UserID, cart: PricedCart, idempotencyKey: String?
        let fingerprint: CheckoutFingerprint?
        let shippingAddress: ShippingAddress?
        public func run(on orders: isolated OrderClient) async throws -> Order {
            try await orders.place(checkoutID: checkoutID, userID: userID, cart: cart, idempotencyKey: idempotencyKey,
                                   fingerprint: fingerprint, shippingAddress: shippingAddress)
        }
    }

    /// Gives or replaces the order's shipping address, while it has not
    /// shipped or been cancelled (`shipping_address_locked`).
    public struct Address: ClientAction {
        let id: OrderID, address: ShippingAddress
        public func run(on orders: isolated OrderClient) async throws -> Order {
            try await orders.address(id, to: address)
        }
    }

    /// Moves the order along the transition table as `actor`, recording
    /// the change and its `cause` in the order's history in the same
    /// transaction.
    public struct Transition: ClientAction {
        let id: OrderID, status: OrderStatus, actor: OrderActor, cause: OrderChangeCause
        public func run(on orders: isolated OrderClient) async throws -> Order {
            try await orders.transition(id, to: status, by: actor, cause: cause)
        }
    }

    /// The order's checkout or cancellation finished its work in the other
    /// clients (stock committed or returned, cart cleared): start-up
    /// reconciliation no longer looks at it. Answers the order as stored
    /// now (the one given unless its status moved meanwhile).
    public struct Settle: ClientAction {
        let order: Order
        public func run(on orders: isolated OrderClient) async throws -> Order { try await orders.settle(order) }
    }

    /// A finished checkout's `settle`, queued: answers the order at once,
    /// and the queued settles are written together, one statement for up
    /// to 32, after. Nothing a caller was told depends on it (the order,
    /// the stock, the payment and the cart are already durable); one lost
    /// to a kill leaves the order open, and start-up reconciliation
    /// finishes and settles it. An order cancelled before its settle lands
    /// stays open for its cancellation to finish. `deactivate` waits for
    /// the queue, so a graceful stop leaves none.
    public struct SettleSoon: ClientAction {
        let order: Order
        public func run(on orders: isolated OrderClient) async throws -> Order { orders.settleSoon(order) }
    }
}

extension ClientAction where Self == OrderClient.Place {
    public static func place(checkoutID: CheckoutID, userID: UserID, cart: PricedCart, idempotencyKey: String?,
                             fingerprint: CheckoutFingerprint? = nil, shippingAddress: ShippingAddress? = nil) -> Self {
        Self(checkoutID: checkoutID, userID: userID, cart: cart, idempotencyKey: idempotencyKey, fingerprint: fingerprint,
             shippingAddress: shippingAddress)
    }
}

extension ClientAction where Self == OrderClient.Address {
    public static func address(_ id: OrderID, to address: ShippingAddress) -> Self { Self(id: id, address: address) }
}

extension ClientAction where Self == OrderClient.Transition {
    public static func transition(_ id: OrderID, to status: OrderStatus, by actor: OrderActor,
                                  cause: OrderChangeCause) -> Self {
        Self(id: id, status: status, actor: actor, cause: cause)
    }
}

extension ClientAction where Self == OrderClient.Settle {
    public static func settle(_ order: Order) -> Self { Self(order: order) }
}

extension ClientAction where Self == OrderClient.SettleSoon {
    public static func settleSoon(_ order: Order) -> Self { Self(order: order) }
}
