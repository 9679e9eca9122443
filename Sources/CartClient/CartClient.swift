import Axiom
import Capabilities
import Domain

public enum CartAction: Sendable {
    /// With `unchangedFrom`, the change is made only while the user's cart
    /// is still that cart (`precondition_failed` otherwise: `If-Match`).
    case setQuantity(UserID, ProductID, Int, unchangedFrom: Cart? = nil)
    case remove(UserID, ProductID, unchangedFrom: Cart? = nil)
    case clear(UserID)
    /// Takes a finished checkout's ordered lines out of the user's cart
    /// (`Cart.removingOrdered`: what was changed since the checkout read the
    /// cart stays), once per checkout: the checkout id is recorded in the
    /// same transaction, so a repeat (start-up reconciliation after a crash)
    /// leaves a cart refilled since untouched.
    case clearAfterCheckout(UserID, CheckoutID, ordered: [CartLine])
}

/// Published keyed by the cart's `UserID`: an observer of one user
/// subscribes with `stateBroadcaster.subscribe(key: userID)`.
public enum CartUpdate: Sendable, Hashable {
    /// A user's cart changed; every session of that user sees the new one.
    case changed(Cart)
}

/// The carts, one per user: the singleton owner of `CartState`. It knows
/// product ids only (cross-domain references by id); whether a product
/// exists and what it costs is the catalogue's business, asked by the
/// context. Writes follow validate → durable commit → apply → publish →
/// return; the line order (the order products were added) is kept.
///
/// Storage (SQLite or PostgreSQL) holds every cart; the client holds a working set of at most
/// `cacheEntries` carts (CLOCK, `WorkingSet`): those of users who asked
/// lately. A miss reads that user's lines (primary-key range) while
/// holding the user's turn (below), so no change of that cart can commit
/// between the read and keeping it: a cart kept is never older than the
/// last commit. Nothing is read at start-up (issue 12: every cart line was).
public actor CartClient: StatefulClient {
    public static let migrations: [Migration] = [
        Migration(version: 300, name: "cart lines", sql: """
            CREATE TABLE cart_lines (
                user_id    TEXT NOT NULL,
                product_id TEXT NOT NULL,
                quantity   INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 99),
                position   INTEGER NOT NULL,
                PRIMARY KEY (user_id, product_id)
            ) STRICT;
            """, postgresSQL: """
            CREATE TABLE cart_lines (
                user_id    TEXT NOT NULL,
                product_id TEXT NOT NULL,
                quantity   BIGINT NOT NULL CHECK (quantity BETWEEN 1 AND 99),
                position   BIGINT NOT NULL,
                PRIMARY KEY (user_id, product_id)
            );
            """),
        Migration(version: 301, name: "checkouts whose cart was cleared", sql: """
            CREATE TABLE cart_cleared_checkouts (
                checkout_id TEXT PRIMARY KEY,
                user_id     TEXT NOT NULL
            ) STRICT;
            """, postgresSQL: """
            CREATE TABLE cart_cleared_checkouts (
                checkout_id TEXT PRIMARY KEY,
                user_id     TEXT NOT NULL
            );
            """),
    ]
    public static let defaultCacheEntries = 10_000

    public nonisolated let stateBroadcaster = StateBroadcaster<CartUpdate>(bufferLimit: 256)
    var cache: WorkingSet<UserID, Cart>
    private let storage: StorageAccess
    /// Users whose cart is being changed or read from storage, each with
    /// the changes waiting their turn. Without it two requests of one user
    /// (two sessions, or pipelined) both started from the same cart while
    /// the first awaited its commit, and the second stored a cart without
    /// the first's line: an acknowledged change lost. A miss takes the turn
    /// too, so its read cannot land after a commit it did not see.
    private var turns = KeyedTurns<UserID>()

    /// `cacheEntries`: the most carts kept in memory (at least 1).
    public init(storage: CapabilityHandle<SQLiteStorage>, cacheEntries: Int = CartClient.defaultCacheEntries) {
        self.init(storage: StorageAccess(storage), cacheEntries: cacheEntries)
    }

    /// Over SQLite or PostgreSQL alike: the client only sees `StorageHandle`s.
    public init(storage: StorageAccess, cacheEntries: Int = CartClient.defaultCacheEntries) {
        self.storage = storage
        self.cache = WorkingSet(capacity: cacheEntries)
    }

    /// The working set: the non-empty carts held in memory now.
    public var state: CartState {
        (try? CartState(carts: cache.values)) ?? CartState()
    }

    /// How many carts (empty ones too) the working set holds.
    public var cachedCount: Int { cache.count }

    /// Reads nothing: carts are read when their user asks.
    public func activate() async throws {}

    public func deactivate() async {
        stateBroadcaster.finish()
    }

    public func send(_ action: CartAction) async throws -> Cart {
        let user = action.user
        // One user's changes are made one after another, each from the cart
        // the previous one left; different users' changes still run at once
        // (and are committed together).
        await startWriting(for: user)
        defer { finishWriting(for: user) }
        let cart = try await loaded(user)
        // If-Match, in the user's turn: no other change of this cart can
        // commit between this comparison and the change below, so of two
        // requests that saw the same cart one wins and one is refused.
        if let unchangedFrom = action.unchangedFrom, cart != unchangedFrom {
            throw DomainError.preconditionFailed(entity: "cart")
        }
        switch action {
        case .setQuantity(_, let product, let quantity, _):
            let change: LineChange = cart.quantity(of: product) == nil ? .addLine(product, quantity)
                                                                        : .setQuantity(product, quantity)
            return try await apply(try cart.settingQuantity(quantity, for: product), change)
        case .remove(_, let product, _):
            return try await apply(cart.removing(product), .remove(product))
        case .clear:
            return try await apply(cart.cleared(), .clear)
        case .clearAfterCheckout(_, let checkoutID, let ordered):
            let remaining = cart.removingOrdered(ordered)
            let kept = Set(remaining.lines.map(\.productID))
            let taken = cart.lines.map(\.productID).filter { !kept.contains($0) }
            return try await apply(remaining, .removeOrdered(taken, checkoutID: checkoutID), unchanged: cart)
        }
    }

    /// The user's cart: from the working set, or read from storage (in the
    /// user's turn) and kept.
    public func cart(for user: UserID) async throws -> Cart {
        if let hit = cache.lookup(user) { return hit }
        await startWriting(for: user)
        defer { finishWriting(for: user) }
        return try await loaded(user)
    }

    /// The checkouts among `checkoutIDs` whose cart was not cleared yet
    /// (`clearAfterCheckout` never committed for them): start-up
    /// reconciliation finishes those. One primary-key probe each.
    public func unclearedCheckouts(among checkoutIDs: [CheckoutID]) async throws -> [CheckoutID] {
        let cleared = try await storage.storedRead { handle in
            try checkoutIDs.filter { try CartStore.isCleared(handle, $0) }
        }
        let done = Set(cleared)
        return checkoutIDs.filter { !done.contains($0) }
    }

    // MARK: Internals

    /// What changed in a user's cart, written as just that change: one
    /// statement per request whatever the cart's size (rewriting every
    /// line made a write cost as much as the cart was long).
    private enum LineChange: Sendable {
        /// A new line, at the end (after the highest position, so the order
        /// survives removals).
        case addLine(ProductID, Int)
        /// Another quantity for a line the cart holds, in place.
        case setQuantity(ProductID, Int)
        case remove(ProductID)
        case clear
        /// The lines a checkout ordered, and the record that its clear ran,
        /// in the same transaction.
        case removeOrdered([ProductID], checkoutID: CheckoutID)
    }

    /// The user's cart; only in the user's turn (a miss's read must not
    /// race a change of the same cart).
    func loaded(_ user: UserID) async throws -> Cart {
        if let hit = cache.lookup(user) { return hit }
        let lines = try await storage.storedRead { try CartStore.lines($0, user: user) }
        let cart = try Cart(userID: user, lines: lines).validated()
        cache.store(cart, for: user)
        return cart
    }

    /// Commits `change` durably, then makes `cart` (the user's cart with
    /// the change made) the state. One statement, one transaction: a crash
    /// leaves the old cart or the new one, never a mix. A checkout's clear
    /// that already ran (its record is there) changes nothing and returns
    /// `unchanged`.
    private func apply(_ cart: Cart, _ change: LineChange, unchanged: Cart? = nil) async throws -> Cart {
        let user = cart.userID.description
        let applied = try await storage.durableWrite { handle -> Bool in
            switch change {
            case .setQuantity(let product, let quantity):
                // The usual change, and one primary-key lookup; the
                // insert below only if the row is not there after all.
                let changed = try handle.execute("UPDATE cart_lines SET quantity = ? WHERE user_id = ? AND product_id = ?",
                                                 quantity, user, product.description)
                if changed == 0 { try Self.addLine(handle, user: user, product: product, quantity: quantity) }
            case .addLine(let product, let quantity):
                try Self.addLine(handle, user: user, product: product, quantity: quantity)
            case .remove(let product):
                try handle.execute("DELETE FROM cart_lines WHERE user_id = ? AND product_id = ?", user, product.description)
            case .clear:
                try handle.execute("DELETE FROM cart_lines WHERE user_id = ?", user)
            case .removeOrdered(let products, let checkoutID):
                if try CartStore.isCleared(handle, checkoutID) { return false }
                for product in products {
                    try handle.execute("DELETE FROM cart_lines WHERE user_id = ? AND product_id = ?",
                                       user, product.description)
                }
                try handle.execute("INSERT INTO cart_cleared_checkouts(checkout_id, user_id) VALUES(?, ?)",
                                   checkoutID.description, user)
            }
            // Other replicas' working sets and /events follow this row.
            try handle.recordChange(ChangeRecord(kind: .cart, key: user, userID: user))
            return true
        }
        guard applied else { return unchanged ?? cart }
        cache.store(try cart.validated(), for: cart.userID)
        stateBroadcaster.publish(.changed(cart), key: cart.userID)
        return cart
    }

    /// Inserts the line after the user's highest position (or sets the
    /// quantity of the line already there).
    private static func addLine(_ handle: any StorageHandle, user: String, product: ProductID, quantity: Int) throws {
        try handle.execute("""
            INSERT INTO cart_lines(user_id, product_id, quantity, position)
            VALUES(?1, ?2, ?3, (SELECT COALESCE(MAX(position) + 1, 0) FROM cart_lines WHERE user_id = ?1))
            ON CONFLICT(user_id, product_id) DO UPDATE SET quantity = excluded.quantity
            """, user, product.description, quantity)
    }

    /// Waits until no other change or miss of `user`'s cart is in flight (FIFO).
    func startWriting(for user: UserID) async {
        if !turns.enter(user) { await withCheckedContinuation { turns.wait($0, for: user) } }
    }

    func finishWriting(for user: UserID) {
        turns.leave(user)
    }
}

extension CartAction {
    var user: UserID {
        switch self {
        case .setQuantity(let user, _, _, _), .remove(let user, _, _), .clear(let user), .clearAfterCheckout(let user, _, _): user
        }
    }

    var unchangedFrom: Cart? {
        switch self {
        case .setQuantity(_, _, _, let cart), .remove(_, _, let cart): cart
        case .clear, .clearAfterCheckout: nil
        }
    }
}
