import Axiom
import Capabilities
import Domain

/// Published keyed by the cart's `UserID`: an observer of one user
/// subscribes with `stateBroadcaster.subscribe(key: userID)`.
public enum CartUpdate: Sendable, Hashable {
    /// A user's cart changed; every session of that user sees the new one.
    /// `sequence` is the change's row in the outbox (the `/events` id), the
    /// same on every replica.
    case changed(Cart, sequence: Int64)
}

/// The carts, one per user: the singleton owner of `CartState`. It knows
/// product ids only (cross-domain references by id); whether a product
/// exists and what it costs is the catalogue's business, asked by the
/// context. Writes follow validate → durable commit → apply → publish →
/// return; the line order (the order products were added) is kept.
///
/// Storage (SQLite or PostgreSQL) holds every cart; the client holds a
/// working set of at most `cacheEntries` carts (`VersionedWorkingSet`):
/// those of users who asked lately, each with its `cart_versions` version.
/// A read is `nonisolated` (a hit costs a lock, not a hop onto this actor);
/// a miss reads that user's lines and version in one snapshot, and a late
/// read never replaces a newer cart a write left, so a cart kept is never
/// older than the last commit it was told of. Nothing is read at start-up.
///
/// A write starts from the cart in storage, not from the working set
/// (`CartWrite`): with replicas on one database another process may have
/// changed it, and a change made to a stale copy would be acknowledged
/// with the other's line missing, or checked against the wrong `If-Match`.
public actor CartClient: StatefulClient, WorkingSetReporting {
    public static let migrations: [Migration] = [
        Migration(version: 300, name: "cart lines", portableSQL: """
            CREATE TABLE cart_lines (
                user_id    TEXT NOT NULL,
                product_id TEXT NOT NULL,
                quantity   INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 99),
                position   INTEGER NOT NULL,
                PRIMARY KEY (user_id, product_id)
            ) STRICT;
            """),
        Migration(version: 301, name: "checkouts whose cart was cleared", portableSQL: """
            CREATE TABLE cart_cleared_checkouts (
                checkout_id TEXT PRIMARY KEY,
                user_id     TEXT NOT NULL
            ) STRICT;
            """),
        // One row per user whose cart was written: each write bumps it
        // first, which locks it on PostgreSQL until the commit, so one
        // user's cart writes from several replicas take turns.
        // A cart without lines has no `cart_lines` row to lock.
        Migration(version: 302, name: "cart write turns", portableSQL: """
            CREATE TABLE cart_versions (
                user_id TEXT PRIMARY KEY,
                version INTEGER NOT NULL
            ) STRICT;
            """),
    ]
    public static let defaultCacheEntries = 10_000

    public nonisolated let stateBroadcaster = StateBroadcaster<CartUpdate>(bufferLimit: 256)
    nonisolated let cache: VersionedWorkingSet<UserID, Cart>
    nonisolated let storage: StorageAccess
    /// Users whose cart is being changed, each with the changes waiting
    /// their turn. Without it two requests of one user (two sessions, or
    /// pipelined) both started from the same cart while the first awaited
    /// its commit, and the second stored a cart without the first's line:
    /// an acknowledged change lost.
    private var turns = KeyedTurns<UserID>()

    /// Over SQLite or PostgreSQL alike: the client only sees `StorageHandle`s.
    /// `cacheEntries`: the most carts kept in memory (at least 1).
    public init(storage: StorageAccess, cacheEntries: Int = CartClient.defaultCacheEntries) {
        self.storage = storage
        self.cache = VersionedWorkingSet(name: "carts", capacity: cacheEntries)
    }

    /// The working set: the non-empty carts held in memory now.
    public nonisolated var state: CartState {
        (try? CartState(carts: cache.values)) ?? CartState()
    }

    /// How many carts (empty ones too) the working set holds.
    public nonisolated var cachedCount: Int { cache.count }

    /// The working set's fill and lookups (`WorkingSetReporting`).
    public nonisolated var workingSets: [WorkingSetUsage] { [cache.usage] }

    /// Reads nothing: carts are read when their user asks.
    public func activate() async throws {}

    public func deactivate() async {
        stateBroadcaster.finish()
    }

    /// The user's cart: from the working set, or read from storage and kept
    /// (concurrent misses of one cart share one read).
    public nonisolated func cart(for user: UserID) async throws -> Cart {
        try await cache.value(user, readingMiss: stored) ?? Cart(userID: user)
    }

    /// The checkouts among `checkoutIDs` whose cart was not cleared yet
    /// (`clearAfterCheckout` never committed for them): start-up
    /// reconciliation finishes those. One primary-key probe each.
    public nonisolated func unclearedCheckouts(among checkoutIDs: [CheckoutID]) async throws -> [CheckoutID] {
        let cleared = try await storage.storedRead { handle in
            try checkoutIDs.filter { try CartStore.isCleared(handle, $0) }
        }
        let done = Set(cleared)
        return checkoutIDs.filter { !done.contains($0) }
    }

    // MARK: Internals

    /// The user's stored cart with its version. One index range of one
    /// user's lines (at most `Cart.maxLines`) and a primary-key probe in one
    /// snapshot, on a reader's queue: never on an event loop, where a page
    /// read from disk would stall every connection of that loop.
    nonisolated func stored(_ user: UserID) async throws -> KeptCart? {
        let (lines, version) = try await storage.storedRead {
            (try CartStore.lines($0, user: user), try CartStore.version($0, user: user))
        }
        return KeptCart(user, try Cart(userID: user, lines: lines).validated(), version: version)
    }

    /// Takes `user`'s turn: waits until no other change of the user's cart
    /// is in flight (FIFO); `leaveTurn(for:)` gives it to the next.
    func enterTurn(for user: UserID) async {
        if !turns.enter(user) { await withCheckedContinuation { turns.wait($0, for: user) } }
    }

    func leaveTurn(for user: UserID) {
        turns.leave(user)
    }
}
