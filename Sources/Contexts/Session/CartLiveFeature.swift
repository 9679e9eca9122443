import Axiom
import CartClient
import Domain

/// `cart.updated` on `/events`: the user's cart, priced as `GET /cart`
/// prices it, whenever any session of theirs (or another replica) changes it.
public struct CartLiveFeature: LiveFeature {
    public static let kind = "cart.updated"

    private let carts: ClientHandle<CartClient>
    private let pricing: CartPricing

    public init(_ creation: ContextCreation) throws {
        carts = try creation.client(CartClient.self)
        pricing = try CartPricing(creation)
    }

    public func observe(_ user: UserID, into sink: LiveSink) -> Task<Void, Never> {
        let changes = sink.subscribe(carts.updates, of: user, what: "cart")
        return Task { [pricing] in
            await changes.run { update in
                guard case .changed(let cart, let sequence) = update, cart.userID == user else { return }
                if let event = await Self.update(cart, pricing) {
                    await sink.send(event, sequence: sequence)
                } else {
                    await sink.send(Self.unpriced, sequence: nil)
                }
            }
        }
    }

    public func replay(of user: UserID, after: Int64, through: Int64) async throws -> [LiveEvent] {
        guard let change = try await carts.call({ try await $0.cartChange(of: user, after: after, through: through) }) else { return [] }
        guard let event = await Self.update(change.cart, pricing) else {
            return [LiveEvent(id: nil, update: Self.unpriced, sequence: nil)]
        }
        return [LiveEvent(id: change.sequence, update: event, sequence: change.sequence)]
    }

    /// Priced as GET /cart prices it; nil when it cannot be (a currency
    /// mismatch would be a bug, storage unavailable for a product not in
    /// the catalogue's working set). Such a cart is not sent wrong, and not
    /// dropped in silence either (the stream would look complete and the
    /// client's cart stay stale): a reset says so.
    private static func update(_ cart: Cart, _ pricing: CartPricing) async -> LiveUpdate? {
        guard let quote = try? await pricing.quote(cart) else { return nil }
        return LiveUpdate(kind: kind, payload: quote)
    }

    private static let unpriced = LiveUpdate.reset(reason: "a cart change could not be priced; fetch the cart again")
}
