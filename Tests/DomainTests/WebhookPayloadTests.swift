import Domain
import Foundation
import Testing

/// An event's body: `{type, timestamp, data}`, the resource's members as
/// its own encoding writes them, then what the event adds and `version`.
@Suite struct WebhookPayloadTests {
    static let user = User(id: UserID(UUID(uuidString: "00000000-0000-4000-8000-000000000007")!), name: "Zoë \"Z\" Ü",
                           email: try! Email("zoe@example.com"), emailVerified: false,
                           createdAt: Timestamp(millisecondsSince1970: 1_767_225_600_123))

    static func object(_ bytes: [UInt8]) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? NSDictionary)
    }

    @Test func aCustomersEventCarriesTheUserAsItEncodesWithItsVersion() throws {
        let event = WebhookEvent(type: .customerCreated, subject: .customer(Self.user.id), at: 1_767_225_600_500)
        let body = WebhookPayload.customer(event, Self.user, version: 42)
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.hasPrefix(#"{"type":"customer.created","timestamp":"2026-01-01T00:00:00.500Z","data":{"id":"#))
        let data = try #require(try Self.object(body)["data"] as? NSDictionary)
        let reference = try #require(try Self.object(Array(try JSONEncoder().encode(Self.user))).mutableCopy() as? NSMutableDictionary)
        reference["version"] = 42
        #expect(data == reference)
    }

    @Test func aStockAlertAddsTheThresholdAfterTheProduct() throws {
        let product = Product(id: ProductID(UUID()), sku: "MUG", name: "Mug", price: Money(amount: 1250, currency: .usd),
                              stock: 2)
        let low = WebhookEvent(type: .productStockLow, subject: .product(product.id), at: 0, threshold: 3)
        let data = try #require(try Self.object(WebhookPayload.product(low, product, version: 7))["data"] as? NSDictionary)
        #expect(data["threshold"] as? Int == 3 && data["version"] as? Int == 7 && data["sku"] as? String == "MUG")
        #expect(data["amount"] == nil)
    }
}
