import Axiom
import CatalogClient
import Domain
import WishlistClient

/// `wishlist.updated` on `/events`: the user's wishlist as `GET /wishlist`
/// shows it, whenever any session of theirs (or another replica) changes it.
public struct WishlistLiveFeature: LiveFeature {
    public static let kind = "wishlist.updated"

    private let catalog: ClientHandle<CatalogClient>
    private let wishlists: ClientHandle<WishlistClient>

    public init(_ creation: ContextCreation) throws {
        catalog = try creation.client(CatalogClient.self)
        wishlists = try creation.client(WishlistClient.self)
    }

    public func observe(_ user: UserID, into sink: LiveSink) -> Task<Void, Never> {
        let changes = sink.subscribe(wishlists.updates, of: user, what: "wishlist")
        return Task { [self] in
            await changes.run { update in
                guard case .changed(let owner, let items, let sequence) = update, owner == user else { return }
                if let shown = await self.update(items) {
                    await sink.send(shown, sequence: sequence)
                } else {
                    await sink.send(Self.unread, sequence: nil)
                }
            }
        }
    }

    public func replay(of user: UserID, after: Int64, through: Int64) async throws -> [LiveEvent] {
        guard let change = try await wishlists.call({ try await $0.wishlistChange(of: user, after: after, through: through) }) else {
            return []
        }
        guard let shown = await update(change.items) else { return [LiveEvent(id: nil, update: Self.unread, sequence: nil)] }
        return [LiveEvent(id: change.sequence, update: shown, sequence: change.sequence)]
    }

    /// With each product as the catalogue holds it now; nil when the
    /// catalogue cannot be read (storage away): a reset, never a stale list.
    private func update(_ items: [ProductID]) async -> LiveUpdate? {
        guard let products = try? await catalog.call({ try await $0.lookup(items) }) else { return nil }
        return LiveUpdate(kind: Self.kind, payload: Wishlist(items: items, products: products))
    }

    private static let unread = LiveUpdate.reset(reason: "a wishlist change could not be read; fetch the wishlist again")
}
