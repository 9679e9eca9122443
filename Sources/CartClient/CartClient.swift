import Axiom
import Capabilities
import Domain

public enum CartAction: Sendable {
    case setQuantity(UserID, ProductID, Int)
    case remove(UserID, ProductID)
    case clear(UserID)
    /// Takes a finished checkout's ordered lines out of the user's cart
    /// (`Cart.removingOrdered`: what was changed since the checkout read the
    /// cart stays), once per checkout: the checkout id is recorded in the
    /// same transaction, so a repeat (start-up reconciliation after a crash)
    /// leaves a cart refilled since untouched.
    case clearAfterCheckout(UserID, CheckoutID, ordered: [CartLine])
}

public enum CartUpdate: Sendable, Hashable {
    /// A user's cart changed; every session of that user sees the new one.
    case changed(Cart)
}

/// The carts, one per user: the singleton owner of `CartState`. It knows
/// product ids only (cross-domain references by id); whether a product
/// exists and what it costs is the catalogue's business, asked by the
/// context. Writes follow validate → durable commit → apply → publish →
/// return; the line order (the order products were added) is kept.
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
            """),
        Migration(version: 301, name: "checkouts whose cart was cleared", sql: """
            CREATE TABLE cart_cleared_checkouts (
                checkout_id TEXT PRIMARY KEY,
                user_id     TEXT NOT NULL
            ) STRICT;
            """),
    ]
    static let storageName = String(reflecting: SQLiteStorage.self)

    public nonisolated let stateBroadcaster = StateBroadcaster<CartUpdate>(bufferLimit: 256)
    public private(set) var state = CartState()
    private var clearedCheckouts: Set<CheckoutID> = []
    private let storage: CapabilityHandle<SQLiteStorage>

    public init(storage: CapabilityHandle<SQLiteStorage>) {
        self.storage = storage
    }

    public func activate() async throws {
        let rows = try await storage.current.read { handle in
            try handle.query("SELECT user_id, product_id, quantity FROM cart_lines ORDER BY user_id, position")
                .map { row -> (String, String, Int) in (try row.get("user_id"), try row.get("product_id"), try row.get("quantity")) }
        }
        let cleared = try await storage.current.read { handle in
            try handle.query("SELECT checkout_id FROM cart_cleared_checkouts").map { row -> String in try row.get("checkout_id") }
        }
        clearedCheckouts = Set(cleared.compactMap(CheckoutID.init))
        var lines: [UserID: [CartLine]] = [:]
        for (userText, productText, quantity) in rows {
            guard let user = UserID(userText), let product = ProductID(productText) else {
                throw CartDataError(description: "cart line \(userText)/\(productText) is not valid")
            }
            lines[user, default: []].append(CartLine(productID: product, quantity: quantity))
        }
        state = try CartState(carts: lines.map { Cart(userID: $0.key, lines: $0.value) })
    }

    public func deactivate() async {
        stateBroadcaster.finish()
    }

    public func send(_ action: CartAction) async throws -> Cart {
        switch action {
        case .setQuantity(let user, let product, let quantity):
            return try await apply(try state.cart(for: user).settingQuantity(quantity, for: product))
        case .remove(let user, let product):
            return try await apply(state.cart(for: user).removing(product))
        case .clear(let user):
            return try await apply(state.cart(for: user).cleared())
        case .clearAfterCheckout(let user, let checkoutID, let ordered):
            if clearedCheckouts.contains(checkoutID) { return state.cart(for: user) }
            return try await apply(state.cart(for: user).removingOrdered(ordered), recording: checkoutID)
        }
    }

    public func cart(for user: UserID) -> Cart {
        state.cart(for: user)
    }

    /// The checkouts among `checkoutIDs` whose cart was not cleared yet
    /// (`clearAfterCheckout` never committed for them): start-up
    /// reconciliation finishes those.
    public func unclearedCheckouts(among checkoutIDs: [CheckoutID]) -> [CheckoutID] {
        checkoutIDs.filter { !clearedCheckouts.contains($0) }
    }

    /// Stores `cart` as the user's whole cart: one transaction replaces the
    /// lines, so a crash leaves the old cart or the new one, never a mix.
    private func apply(_ cart: Cart, recording checkoutID: CheckoutID? = nil) async throws -> Cart {
        let instance: SQLiteStorage
        do {
            instance = try storage.available()
        } catch {
            throw AxiomError.capabilityUnavailable(Self.storageName)
        }
        let user = cart.userID.description
        let lines = cart.lines
        do {
            try await instance.write { handle in
                try handle.execute("DELETE FROM cart_lines WHERE user_id = ?", user)
                for (position, line) in lines.enumerated() {
                    try handle.execute("INSERT INTO cart_lines(user_id, product_id, quantity, position) VALUES(?, ?, ?, ?)",
                                       user, line.productID.description, line.quantity, position)
                }
                if let checkoutID {
                    try handle.execute("INSERT OR IGNORE INTO cart_cleared_checkouts(checkout_id, user_id) VALUES(?, ?)",
                                       checkoutID.description, user)
                }
            }
        } catch let error as StorageError where error.isUnavailable {
            throw AxiomError.capabilityUnavailable(Self.storageName)
        }
        try state.store(cart)
        if let checkoutID { clearedCheckouts.insert(checkoutID) }
        stateBroadcaster.publish(.changed(cart))
        return cart
    }
}

struct CartDataError: Error, CustomStringConvertible {
    let description: String
}
