import Foundation
import Testing
import TestSupport

/// The account flows over real HTTP against the real binary (on SQLite,
/// or PostgreSQL when the tests run there), with mail off as this build
/// has it: sessions listed and ended, reset requests answered alike,
/// mailed-link tokens refused when unknown, account deletion, and a
/// verified address required before checkout.
@Suite struct AccountLifecycleFlowTests {
    typealias Shop = PaymentShop
    static let password = Shop.password

    @Test func sessionsAreListedAndEndedOneByOneAndAnotherUsersIsNotFound() throws {
        try ServerDatabase.withFresh { database in
            try ServerProcess.run(environment: AccountFlowTests.adminEnvironment, database: database) { _, api in
                try api.register("Ann", email: "ann@example.com", password: Self.password)
                let phone = try api.token("ann@example.com", Self.password)
                let laptop = try api.token("ann@example.com", Self.password)
                let admin = try api.adminToken()

                let listed = try api.call("GET", "/me/sessions", token: phone)
                #expect(listed.status == 200)
                #expect(listed.header("Cache-Control") == "no-store")
                let sessions = try #require(api.object(listed)["sessions"] as? [[String: Any]])
                #expect(sessions.count == 2)
                #expect(sessions.map { $0["current"] as? Bool } == [true, false])
                #expect(sessions.allSatisfy { $0["created_at"] is String && $0["expires_at"] is String && $0["token"] == nil })
                let other = try #require(sessions[1]["id"] as? String)
                let mine = try #require(sessions[0]["id"] as? String)

                // The admin's session list holds neither; ending Ann's is a 404.
                let adminsList = try #require(api.object(try api.call("GET", "/me/sessions", token: admin))["sessions"] as? [[String: Any]])
                #expect(adminsList.count == 1)
                let foreign = try api.call("DELETE", "/me/sessions/\(other)", token: admin)
                #expect(foreign.status == 404)
                #expect(api.object(foreign)["code"] as? String == "session_not_found")
                #expect(try api.call("GET", "/users/me", token: laptop).status == 200)

                #expect(try api.call("DELETE", "/me/sessions/\(other)", token: phone).status == 204)
                #expect(try api.call("GET", "/users/me", token: laptop).status == 401)
                #expect(try api.call("DELETE", "/me/sessions/\(other)", token: phone).status == 404)
                #expect(try api.call("GET", "/users/me", token: phone).status == 200)
                // Ending the current one signs this token out too.
                #expect(try api.call("DELETE", "/me/sessions/\(mine)", token: phone).status == 204)
                #expect(try api.call("GET", "/users/me", token: phone).status == 401)
            }
        }
    }

    @Test func resetRequestsAreAnsweredAlikeAndUnknownTokensRefusedWithOneCode() throws {
        try ServerProcess.run { _, api in
            try api.register("Ann", email: "ann@example.com", password: Self.password)
            // Without mail nothing can be reset: the same 409 for every address.
            let known = try api.call("POST", "/password-resets", json: #"{"email":"ann@example.com"}"#)
            let unknown = try api.call("POST", "/password-resets", json: #"{"email":"nobody@example.com"}"#)
            #expect(known.status == 409 && unknown.status == 409)
            #expect(api.object(known)["code"] as? String == "mail_not_configured")
            #expect(api.object(known)["detail"] as? String == api.object(unknown)["detail"] as? String)

            let reset = try api.call("POST", "/password-resets/complete",
                                     json: #"{"token":"bm90LWEtcmVhbC10b2tlbg","password":"a brand new secret"}"#)
            #expect(reset.status == 422)
            #expect(api.object(reset)["code"] as? String == "reset_token_invalid")
            let weak = try api.call("POST", "/password-resets/complete", json: #"{"token":"","password":"short"}"#)
            #expect(weak.status == 422)
            let fields = (api.object(weak)["errors"] as? [[String: Any]])?.compactMap { $0["field"] as? String }
            #expect(Set(fields ?? []) == ["token", "password"])
            let verification = try api.call("POST", "/email-verifications", json: #"{"token":"bm90LWEtcmVhbC10b2tlbg"}"#)
            #expect(verification.status == 422)
            #expect(api.object(verification)["code"] as? String == "verification_token_invalid")

            // A new account is unverified; with mail off no link is sent.
            let token = try api.token("ann@example.com", Self.password)
            #expect(api.object(try api.call("GET", "/users/me", token: token))["email_verified"] as? Bool == false)
            let resend = try api.call("POST", "/me/email-verifications", token: token)
            #expect(resend.status == 202 && api.object(resend)["sent"] as? Bool == false)
        }
    }

    @Test func deletionErasesTheCustomerButOrdersKeepTheirTotalsAndTheAddressIsFree() throws {
        try Shop.run { shop, api in
            let token = try shop.customer("ann")
            let order = try shop.checkout(token, quantity: 2, body: Shop.addressedCheckout)
            let id = try #require(order["id"] as? String)
            let total = try #require(order["total"] as? [String: Any])
            #expect(order["shipping_address"] != nil)
            let user = try api.userID(token)
            #expect(try api.call("PUT", "/cart/items/\(shop.productID)", json: #"{"quantity":1}"#, token: token).status == 200)
            #expect(try api.call("PUT", "/wishlist/items/\(shop.productID)", token: token).status == 200)
            let other = try api.token("ann@example.com", Self.password)

            let wrong = try api.call("DELETE", "/me", json: #"{"password":"not the password"}"#, token: token)
            #expect(wrong.status == 401)
            #expect(try api.call("DELETE", "/me", json: "{}", token: token).status == 422, "the password is required")
            #expect(try api.call("DELETE", "/me", json: #"{"password":"\#(Self.password)"}"#, token: token).status == 204)
            for session in [token, other] {
                #expect(try api.call("GET", "/users/me", token: session).status == 401)
            }
            #expect(try api.call("POST", "/sessions", json: #"{"email":"ann@example.com","password":"\#(Self.password)"}"#).status == 401)

            // The admin still sees the order, its total unchanged, its address gone.
            let kept = try shop.order(id, token: shop.admin)
            #expect(kept["total"] as? [String: Any] as NSDictionary? == total as NSDictionary)
            #expect(kept["shipping_address"] == nil)
            #expect(kept["user_id"] as? String == user)
            let anonymised = api.object(try api.call("GET", "/users/\(user)", token: shop.admin))
            #expect(anonymised["status"] as? String == "deleted")
            #expect(anonymised["email"] as? String != "ann@example.com" && anonymised["name"] as? String != "ann")
            #expect(try api.call("PATCH", "/users/\(user)", json: #"{"status":"active"}"#, token: shop.admin).status == 409)
            // The erasure is queued too, for a process killed before it finished.
            let erasures = api.object(try api.call("GET", "/admin/jobs?kind=account.erase", token: shop.admin))["items"]
                as? [[String: Any]] ?? []
            #expect(erasures.count == 1)
            #expect(erasures.first?["state"] as? String == "queued")

            // Nothing of hers is left in the file (read with Python's sqlite3).
            if ServerDatabase.sqliteOnly {
                let path = shop.server.databaseDirectory.appendingPathComponent("axiom.db").path
                let left = try PythonTool.run("""
                    import sqlite3, sys
                    db = sqlite3.connect(sys.argv[1] if len(sys.argv) > 1 else sys.stdin.readline().strip())
                    user = "\(user)"
                    rows = [db.execute(q, (user,)).fetchone()[0] for q in (
                        "SELECT COUNT(*) FROM cart_lines WHERE user_id = ?",
                        "SELECT COUNT(*) FROM wishlist_items WHERE user_id = ?",
                        "SELECT COUNT(*) FROM orders WHERE user_id = ? AND document LIKE '%Ana Lopez%'",
                        "SELECT COUNT(*) FROM users WHERE id = ? AND (email LIKE 'ann@%' OR password_hash != '')")]
                    print(rows)
                    """, input: path + "\n")
                #expect(left.trimmingCharacters(in: .whitespacesAndNewlines) == "[0, 0, 0, 0]")
            }

            // The address is free: a new account, empty cart and wishlist.
            let again = try shop.customer("ann")
            #expect(try api.userID(again) != user)
            let cart = api.object(try api.call("GET", "/cart", token: again))
            #expect((cart["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func aRequiredVerifiedAddressStopsCheckoutWithOneCode() throws {
        try Shop.run(arguments: ["--require-verified-email", "true"]) { shop, api in
            let token = try shop.customer("bo", carting: 1)
            let refused = try api.call("POST", "/checkout", token: token)
            #expect(refused.status == 409)
            #expect(Shop.code(api, refused) == "email_not_verified")
            #expect(try shop.stock() == 100, "nothing was reserved")
            // The configured admin's own address counts as confirmed.
            #expect(try api.call("PUT", "/cart/items/\(shop.productID)", json: #"{"quantity":1}"#, token: shop.admin).status == 200)
            #expect(try api.call("POST", "/checkout", token: shop.admin).status == 201)
        }
    }
}
