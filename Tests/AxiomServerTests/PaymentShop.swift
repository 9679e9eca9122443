import Foundation
import Testing
import TestSupport

/// A running server with payments configured, an admin, one product, and
/// the provider played by `scripts/pay.py` (signing with Python's hmac,
/// independent of the server's code).
struct PaymentShop {
    typealias API = AccountFlowTests.API
    static let secret = "whsec_integration_secret"
    static let password = "correct horse battery"
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/pay.py").path

    let server: ServerProcess
    let api: API
    let admin: String
    let productID: String

    /// A signed delivery as the provider would send it.
    struct Delivery {
        let body: String
        let signature: String
    }

    /// A valid shipping address, as the checkout body's member and PUT's body.
    static let address = #"{"name":"Ana Lopez","lines":["Calle Mayor 1","2º B"],"city":"Madrid","postal_code":"28013","country":"ES","phone":"+34910000000"}"#
    /// A checkout body that gives `address`.
    static let addressedCheckout = #"{"shipping_address":\#(address)}"#

    /// The product every shop sells, unless it names another.
    struct Product {
        var sku = "PAY-1", name = "Kettle", price = 4000
    }

    static func open(stock: Int = 100, arguments: [String] = [], secret: String? = PaymentShop.secret,
                     product: Product = Product()) throws -> PaymentShop {
        var environment = AccountFlowTests.adminEnvironment
        if let secret { environment["AXIOM_PAYMENT_WEBHOOK_SECRET"] = secret }
        let server = ServerProcess(arguments: ["--port", "0"] + arguments, environment: environment)
        try server.start()
        let api = API(port: server.port)
        do {
            let admin = try api.adminToken()
            let productID = try api.product(sku: product.sku, name: product.name, price: product.price, stock: stock, admin: admin)
            return PaymentShop(server: server, api: api, admin: admin, productID: productID)
        } catch {
            server.stop()
            throw error
        }
    }

    /// Runs `body` on a shop opened as `open` does, and stops its server
    /// when `body` ends, however it ends.
    static func run<T>(stock: Int = 100, arguments: [String] = [], secret: String? = PaymentShop.secret,
                       _ body: (PaymentShop, API) throws -> T) throws -> T {
        let shop = try open(stock: stock, arguments: arguments, secret: secret)
        defer { shop.server.stop() }
        return try body(shop, shop.api)
    }

    static func run<T>(stock: Int = 100, arguments: [String] = [], secret: String? = PaymentShop.secret,
                       _ body: (PaymentShop, API) async throws -> T) async throws -> T {
        let shop = try open(stock: stock, arguments: arguments, secret: secret)
        defer { shop.server.stop() }
        return try await body(shop, shop.api)
    }

    /// The admin's user id.
    func adminID() throws -> String {
        try api.userID(admin)
    }

    /// A new signed-in customer.
    func customer(_ name: String) throws -> String {
        let email = "\(name)@example.com"
        try api.register(name, email: email, password: Self.password)
        return try api.token(email, Self.password)
    }

    /// A new customer with `quantity` of the product in the cart.
    func customer(_ name: String, carting quantity: Int) throws -> String {
        let token = try customer(name)
        #expect(try api.call("PUT", "/cart/items/\(productID)", json: #"{"quantity":\#(quantity)}"#, token: token).status == 200)
        return token
    }

    /// A new customer and the order they placed for one unit (`checkout`).
    func customerWithOrder(_ name: String) throws -> (token: String, order: [String: Any], id: String) {
        let token = try customer(name)
        let order = try checkout(token)
        return (token, order, try #require(order["id"] as? String))
    }

    /// Puts `quantity` in the cart and checks out (with `body`, e.g. a
    /// payment method); the order as answered.
    func checkout(_ token: String, quantity: Int = 1, body: String? = nil) throws -> [String: Any] {
        #expect(try api.call("PUT", "/cart/items/\(productID)", json: #"{"quantity":\#(quantity)}"#, token: token).status == 200)
        let placed = try body.map { try api.call("POST", "/checkout", json: $0, token: token) }
            ?? api.call("POST", "/checkout", token: token)
        #expect(placed.status == 201)
        return api.object(placed)
    }

    func stock() throws -> Int? {
        api.object(try api.call("GET", "/products/\(productID)"))["stock"] as? Int
    }

    func order(_ id: String, token: String) throws -> [String: Any] {
        api.object(try api.call("GET", "/orders/\(id)", token: token))
    }

    /// `scripts/pay.py --sign-only` for the payment of `order`.
    func sign(_ order: [String: Any], type: String = "payment.succeeded", eventID: String? = nil,
              amount: Int? = nil, currency: String? = nil, paymentID: String? = nil, reference: String? = nil,
              timestampOffset: Int = 0, secret: String = PaymentShop.secret) throws -> Delivery {
        let payment = try #require(order["payment"] as? [String: Any])
        let money = try #require(payment["amount"] as? [String: Any])
        let id = try #require(payment["id"] as? String)
        let minor = try #require(money["amount"] as? Int), code = try #require(money["currency"] as? String)
        var arguments = ["--secret", secret, "--sign-only", "--type", type,
                         "--payment", paymentID ?? id, "--amount", String(amount ?? minor), "--currency", currency ?? code,
                         "--timestamp", String(Int(Date().timeIntervalSince1970) + timestampOffset)]
        if let eventID { arguments += ["--event-id", eventID] }
        if let reference { arguments += ["--reference", reference] }
        return try Self.signed(arguments)
    }

    /// `scripts/pay.py --body`: exactly `body`, signed now.
    func sign(body: String) throws -> Delivery {
        try Self.signed(["--secret", Self.secret, "--sign-only", "--body", body])
    }

    private static func signed(_ arguments: [String]) throws -> Delivery {
        let output = try runScript(arguments)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String])
        return Delivery(body: try #require(object["body"]), signature: try #require(object["signature"]))
    }

    /// POST /payments/webhook with exactly these bytes and their signature.
    func deliver(_ delivery: Delivery) throws -> RawClient.Response {
        try post(delivery.body, signature: delivery.signature)
    }

    /// POST /payments/webhook with `body` and `signature` (none: no header).
    func post(_ body: String, signature: String?) throws -> RawClient.Response {
        try api.call("POST", "/payments/webhook", json: body,
                     headers: signature.map { ["Axiom-Signature": $0] } ?? [:])
    }

    static func runScript(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script] + arguments
        let stdout = Pipe()
        process.standardOutput = stdout
        try process.run()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw PythonTool.Failure(description: "pay.py failed") }
        return String(decoding: output, as: UTF8.self)
    }

    static func status(_ object: [String: Any]) -> String? { object["status"] as? String }

    static func paymentStatus(_ object: [String: Any]) -> String? {
        (object["payment"] as? [String: Any])?["status"] as? String
    }

    /// A 422's `errors`, each with its string members.
    static func fields(_ api: API, _ response: RawClient.Response) -> [[String: String]] {
        (api.object(response)["errors"] as? [[String: Any]])?.map { error in
            error.compactMapValues { $0 as? String }
        } ?? []
    }

    static func code(_ api: API, _ response: RawClient.Response) -> String? {
        api.object(response)["code"] as? String
    }
}
