import Axiom
import AxiomTestSupport
import Domain
import Foundation
import PricingClient
import Testing

@Suite("PricingClient")
struct PricingClientTests {
    let pricing = PricingClient()
    let user = UserID(UUID())

    func product(_ name: String, price: Int64, currency: Currency = .usd, active: Bool = true,
                 stock: Int = 5) -> Product {
        Product(id: ProductID(UUID()), sku: name.uppercased(), name: name, price: Money(amount: price, currency: currency),
                stock: stock, active: active)
    }

    func cart(_ lines: [(Product, Int)]) -> Cart {
        Cart(userID: user, lines: lines.map { CartLine(productID: $0.0.id, quantity: $0.1) })
    }

    func catalogue(_ products: [Product]) -> [ProductID: Product] {
        Dictionary(uniqueKeysWithValues: products.map { ($0.id, $0) })
    }

    @Test("unit prices from the catalogue, line totals, the total; cart order kept")
    func prices() async throws {
        let mug = product("Mug", price: 1299)
        let pen = product("Pen", price: 250)
        let quote = try pricing.price(cart: cart([(mug, 2), (pen, 3)]), products: catalogue([mug, pen]), currency: .usd)
        #expect(quote.lines.map(\.productID) == [mug.id, pen.id])
        #expect(quote.lines.map(\.name) == ["Mug", "Pen"])
        #expect(quote.lines.map(\.unitPrice.amount) == [1299, 250])
        #expect(quote.lines.map(\.lineTotal.amount) == [2598, 750])
        #expect(quote.total == Money(amount: 3348, currency: .usd))
        #expect(quote.unavailable.isEmpty)
    }

    @Test("an empty cart costs zero in the deployment's currency")
    func empty() throws {
        let quote = try pricing.price(cart: Cart(userID: user), products: [:], currency: .eur)
        #expect(quote.lines.isEmpty && quote.unavailable.isEmpty)
        #expect(quote.total == .zero(.eur))
    }

    @Test("each priced line says how many of its quantity the stock holds, at most its quantity; still priced")
    func availableQuantity() throws {
        let none = product("None", price: 100, stock: 0)
        let short = product("Short", price: 200, stock: 1)
        let plenty = product("Plenty", price: 300, stock: 50)
        let quote = try pricing.price(cart: cart([(none, 2), (short, 3), (plenty, 2)]),
                                      products: catalogue([none, short, plenty]), currency: .usd)
        #expect(quote.lines.map(\.availableQuantity) == [0, 1, 2])
        #expect(quote.total.amount == 200 + 600 + 600 && quote.unavailable.isEmpty)
    }

    @Test("missing and inactive products are reported per line, not priced, not in the total, and not named")
    func unavailable() throws {
        let mug = product("Mug", price: 1000)
        let gone = product("Gone", price: 5)
        let off = product("Off", price: 700, active: false)
        let quote = try pricing.price(cart: cart([(gone, 1), (mug, 1), (off, 2)]), products: catalogue([mug, off]),
                                      currency: .usd)
        #expect(quote.lines.map(\.productID) == [mug.id])
        #expect(quote.total.amount == 1000)
        #expect(quote.unavailable == [
            UnavailableLine(productID: gone.id, name: nil, quantity: 1, reason: .notFound),
            UnavailableLine(productID: off.id, name: nil, quantity: 2, reason: .inactive),
        ])
        #expect(!quote.unavailable.isEmpty)
    }

    @Test("a line total or a total beyond Int64 is overflow, never a trap")
    func overflow() {
        let huge = product("Huge", price: Int64.max / 2 + 1)
        #expect(throws: Overflow()) {
            _ = try pricing.price(cart: cart([(huge, 2)]), products: catalogue([huge]), currency: .usd)
        }
        let big = product("Big", price: Int64.max - 10)
        let small = product("Small", price: 11)
        #expect(throws: Overflow()) {
            _ = try pricing.price(cart: cart([(big, 1), (small, 1)]), products: catalogue([big, small]), currency: .usd)
        }
    }

    @Test("a product priced in another currency is currency_mismatch")
    func currencyMismatch() async {
        let euro = product("Euro", price: 5, currency: .eur)
        await #expect(throws: CurrencyMismatch(.usd, .eur)) {
            _ = try pricing.price(cart: cart([(euro, 1)]), products: catalogue([euro]), currency: .usd)
        }
    }

    @Test("the quote encodes as the API's cart: items, total, unavailable_items; and decodes back")
    func encoding() throws {
        let mug = product("Mug", price: 1299)
        let gone = ProductID(UUID())
        let quote = try pricing.price(cart: Cart(userID: user, lines: [
            CartLine(productID: mug.id, quantity: 1), CartLine(productID: gone, quantity: 2),
        ]), products: catalogue([mug]), currency: .usd)
        let data = try JSONEncoder().encode(quote)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["items", "total", "unavailable_items"])
        let items = try #require(object["items"] as? [[String: Any]])
        #expect(Set(items[0].keys) == ["product_id", "name", "quantity", "unit_price", "line_total",
                                       "available_quantity"])
        let unavailable = try #require(object["unavailable_items"] as? [[String: Any]])
        #expect(unavailable[0]["reason"] as? String == "not_found")
        #expect(unavailable[0]["name"] is NSNull)
        #expect(try JSONDecoder().decode(CartQuote.self, from: data) == quote)
    }

    @Test("registers with the orchestrator as a stateless client with no dependencies")
    func orchestrated() async throws {
        let orchestrator = try await acquireOrchestrator()
        do {
            try orchestrator.registerClient(PricingClient.self, dependencies: []) { _ in PricingClient() }
            try await orchestrator.start()
            #expect(orchestrator.validate().failures.isEmpty)
            await orchestrator.shutdown()
        } catch {
            await orchestrator.shutdown()
            throw error
        }
    }
}
