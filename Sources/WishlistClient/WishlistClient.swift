import Axiom
import Capabilities
import Domain

/// Published keyed by the user: the products they keep saved, newest first.
/// `sequence` is the change's row in the outbox (the `/events` id).
public enum WishlistUpdate: Sendable, Hashable {
    case changed(UserID, [ProductID], sequence: Int64)
}

/// Nothing is kept in memory: a wishlist is read from storage when asked
/// (one primary-key range of at most `maxItems` rows), so there is no copy
/// for another replica's change to leave stale.
public struct WishlistState: Sendable, Equatable {}

/// The products each signed-in user saved for later, at most `maxItems`,
/// newest first. It knows product ids only; whether a product exists and
/// what it costs is the catalogue's business, asked by the context. Writes
/// follow validate → durable commit → publish → return, and record a
/// `wishlist` change in the outbox in the same transaction, so other
/// replicas' live streams show it.
public actor WishlistClient: StatefulClient {
    public static let maxItems = 100

    public static let migrations: [Migration] = [
        // `position` grows per user: newest first is one backward range of
        // the primary key's user prefix, without a clock.
        Migration(version: 600, name: "wishlist items", portableSQL: """
            CREATE TABLE wishlist_items (
                user_id    TEXT NOT NULL,
                product_id TEXT NOT NULL,
                position   INTEGER NOT NULL,
                PRIMARY KEY (user_id, product_id)
            ) STRICT;
            CREATE UNIQUE INDEX wishlist_items_by_position ON wishlist_items (user_id, position);
            """),
    ]

    public nonisolated let stateBroadcaster = StateBroadcaster<WishlistUpdate>(bufferLimit: 256)
    let storage: StorageAccess

    public init(storage: StorageAccess) {
        self.storage = storage
    }

    public var state: WishlistState { WishlistState() }

    public func activate() async throws {}

    public func deactivate() async {
        stateBroadcaster.finish()
    }

    /// The user's saved products, newest first.
    public nonisolated func items(of user: UserID) async throws -> [ProductID] {
        try await storage.storedRead { try WishlistStore.items($0, user: user) }
    }

    /// Saves a product; saving one already saved changes nothing. Answers
    /// the saved products after, newest first.
    public func save(_ user: UserID, _ product: ProductID) async throws -> [ProductID] {
        try await write(user) { try WishlistStore.save(product, for: user, $0) }
    }

    /// Takes a product out; one not saved changes nothing.
    public func unsave(_ user: UserID, _ product: ProductID) async throws -> [ProductID] {
        try await write(user) { try WishlistStore.remove(product, for: user, $0) }
    }

    /// Takes every product out (the account's deletion); an empty list
    /// changes nothing.
    public func clear(_ user: UserID) async throws -> [ProductID] {
        try await write(user) { try WishlistStore.clear(user, $0) }
    }

    /// One change of `user`'s list (`change` answers whether it changed a
    /// row); one that changes nothing writes nothing and publishes nothing.
    private func write(_ user: UserID,
                       _ change: @escaping @Sendable (any StorageHandle) throws -> Bool) async throws -> [ProductID] {
        let ((items, changed), sequence) = try await storage.sequencedWrite { handle in
            let changed = try change(handle)
            if changed {
                // Other replicas' /events streams follow this row.
                try handle.recordChange(ChangeRecord(kind: .wishlist, key: user.description, userID: user.description))
            }
            return (try WishlistStore.items(handle, user: user), changed)
        }
        if changed, let sequence {
            stateBroadcaster.publish(.changed(user, items, sequence: sequence), key: user)
        }
        return items
    }
}
