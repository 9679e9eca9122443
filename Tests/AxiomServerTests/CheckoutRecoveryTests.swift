import Foundation
import Testing
import TestSupport

/// Start-up reconciliation over the real binary, from the database a
/// `kill -9` leaves behind. A checkout's last step, clearing the cart, is
/// its own transaction after the order's payment is opened; the test writes the
/// file as a kill between the two leaves it (the clear undone: its record
/// gone, the cart's lines back) and checks that the restart finishes the
/// checkout, and only that one. scripts/crash-test.sh finds the same state
/// with real kills, now and then.
// It edits the SQLite file with python3's sqlite3: not on the PostgreSQL pass.
@Suite(.enabled(if: ServerDatabase.sqliteOnly)) struct CheckoutRecoveryTests {
    typealias API = AccountFlowTests.API

    func token(_ api: API, _ email: String) throws -> String {
        let body = #"{"email":"\#(email)","password":"correct horse battery"}"#
        return try #require(api.object(try api.call("POST", "/sessions", json: body))["token"] as? String)
    }

    func cart(_ api: API, _ token: String) throws -> [String: Int] {
        let items = api.object(try api.call("GET", "/cart", token: token))["items"] as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: items.map { ($0["product_id"] as? String ?? "", $0["quantity"] as? Int ?? 0) })
    }

    /// Undoes the cart clear of `order`'s checkout in the stopped server's
    /// file: deletes its record, stores `lines` as the user's cart and marks
    /// the order open again (the checkout settles it only after the clear).
    /// With `payment`, deletes the order's payment too (a kill before the
    /// checkout's payment was opened; the three writes after placement go at
    /// once, so either may be missing).
    /// Returns how many clear records it deleted (1: the clear had happened).
    func undoCartClear(database: String, order: String, user: String, lines: [(String, Int)],
                       payment: Bool = false) throws -> Int {
        let program = """
            import sys, json, sqlite3
            job = json.load(sys.stdin)
            db = sqlite3.connect(job["database"])
            with db:
                (checkout,) = db.execute("SELECT checkout_id FROM orders WHERE id = ?", (job["order"],)).fetchone()
                gone = db.execute("DELETE FROM cart_cleared_checkouts WHERE checkout_id = ?", (checkout,)).rowcount
                db.execute("INSERT OR IGNORE INTO open_orders(order_id, created_at, lease_owner) "
                           "SELECT id, created_at, lease_owner FROM orders WHERE id = ?", (job["order"],))
                if job["payment"]:
                    db.execute("DELETE FROM payments WHERE order_id = ?", (job["order"],))
                db.execute("DELETE FROM cart_lines WHERE user_id = ?", (job["user"],))
                for position, (product, quantity) in enumerate(job["lines"]):
                    db.execute("INSERT INTO cart_lines(user_id, product_id, quantity, position) VALUES(?, ?, ?, ?)",
                               (job["user"], product, quantity, position))
            db.close()
            print(gone)
            """
        let job: [String: Any] = ["database": database, "order": order, "user": user, "payment": payment,
                                  "lines": lines.map { [$0.0, $0.1] as [Any] }]
        let input = String(decoding: try JSONSerialization.data(withJSONObject: job), as: UTF8.self)
        return Int(try PythonTool.run(program, input: input).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test func aCheckoutCutOffBeforeItsCartWasClearedIsFinishedAtStartUpAndOnlyThatOne() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-recovery-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("axiom.db").path
        var server = ServerProcess(arguments: ["--port", "0", "--database", database],
                                   environment: AccountFlowTests.adminEnvironment)
        try server.start()
        var api = API(port: server.port)
        let admin = try token(api, "root@example.com", password: "a very long secret")
        var products: [String] = []
        for sku in ["MUG-1", "PEN-1"] {
            let body = #"{"sku":"\#(sku)","name":"\#(sku)","description":"","price":{"amount":500,"currency":"USD"},"stock":10}"#
            products.append(try #require(api.object(try api.call("POST", "/products", json: body, token: admin))["id"] as? String))
        }
        let (mug, pen) = (products[0], products[1])

        // Three customers each check out two mugs and get a pending order with its payment.
        var customers: [(user: String, token: String, order: String)] = []
        for name in ["cut", "done", "shared"] {
            let registered = try api.call("POST", "/users",
                                          json: #"{"name":"\#(name)","email":"\#(name)@example.com","password":"correct horse battery"}"#)
            #expect(registered.status == 202)
            let customer = try token(api, "\(name)@example.com")
            let user = try api.userID(customer)
            #expect(try api.call("PUT", "/cart/items/\(mug)", json: #"{"quantity":2}"#, token: customer).status == 200)
            let placed = try api.call("POST", "/checkout", token: customer, headers: ["Idempotency-Key": "k-\(name)"])
            #expect(placed.status == 201)
            #expect(api.object(placed)["status"] as? String == "pending")
            customers.append((user, customer, try #require(api.object(placed)["id"] as? String)))
        }
        let (cut, done, shared) = (customers[0], customers[1], customers[2])
        // The second fills a new cart after its finished checkout: that cart is not the order's.
        #expect(try api.call("PUT", "/cart/items/\(pen)", json: #"{"quantity":1}"#, token: done.token).status == 200)
        server.signal(SIGTERM)
        #expect(server.waitForExit(seconds: 15) == 0)

        // The first checkout as a kill before its payment was opened and its
        // cart cleared leaves it; the third as a kill after its payment, with
        // a pen another session of that customer put in the cart
        // (acknowledged) between the payment and the kill.
        #expect(try undoCartClear(database: database, order: cut.order, user: cut.user, lines: [(mug, 2)],
                                  payment: true) == 1)
        #expect(try undoCartClear(database: database, order: shared.order, user: shared.user, lines: [(mug, 2), (pen, 1)]) == 1)

        server = ServerProcess(arguments: ["--port", "0", "--database", database], environment: AccountFlowTests.adminEnvironment)
        try server.start()
        api = API(port: server.port)
        #expect(try cart(api, cut.token) == [:], "the interrupted checkout's cart is cleared at start-up")
        #expect(try cart(api, done.token) == [pen: 1], "a cart filled after a finished checkout is left alone")
        #expect(try cart(api, shared.token) == [pen: 1], "only the ordered lines go; the later pen stays")
        #expect(server.log.contains { $0.contains(#""event":"checkouts_reconciled","committed":0,"released":0,"refused":0,"payments_opened":1,"carts_cleared":2,"orders_settled":2,"failed":0"#) })
        let order = api.object(try api.call("GET", "/orders/\(cut.order)", token: cut.token))
        #expect(order["status"] as? String == "pending")
        #expect((order["payment"] as? [String: Any])?["status"] as? String == "requires_payment")
        let retried = try api.call("POST", "/checkout", token: cut.token, headers: ["Idempotency-Key": "k-cut"])
        #expect(api.object(retried)["id"] as? String == cut.order)
        #expect(api.object(try api.call("GET", "/products/\(mug)"))["stock"] as? Int == 4)

        // Once: a cart filled after the repair survives the next start.
        #expect(try api.call("PUT", "/cart/items/\(mug)", json: #"{"quantity":2}"#, token: cut.token).status == 200)
        server.signal(SIGTERM)
        #expect(server.waitForExit(seconds: 15) == 0)
        server = ServerProcess(arguments: ["--port", "0", "--database", database], environment: AccountFlowTests.adminEnvironment)
        try server.start()
        defer { server.stop() }
        api = API(port: server.port)
        #expect(try cart(api, cut.token) == [mug: 2])
        #expect(try cart(api, done.token) == [pen: 1])
        #expect(try cart(api, shared.token) == [pen: 1])
        #expect(server.log.contains { $0.contains(#""event":"checkouts_reconciled","committed":0,"released":0,"refused":0,"payments_opened":0,"carts_cleared":0,"orders_settled":0"#) })
    }
}

extension CheckoutRecoveryTests {
    func token(_ api: API, _ email: String, password: String) throws -> String {
        let body = #"{"email":"\#(email)","password":"\#(password)"}"#
        return try #require(api.object(try api.call("POST", "/sessions", json: body))["token"] as? String)
    }
}
