import Axiom
import Foundation
import HTTPServer
import Testing
@testable import AxiomServer

/// Every route's policy as the route groups declare it, listed in full: a
/// route that silently loses `no-store` (or gains a rate-limit exemption)
/// fails here. The table is what `RoutePolicies` attached by pattern before
/// the groups owned their policies.
@Suite(.serialized) struct RoutePolicyTableTests {
    static let accountData = RoutePolicy(cacheControl: "no-store")
    static let accountRead = RoutePolicy(entityTag: true, cacheControl: "no-store")
    static let probe = RoutePolicy(rateLimited: false)

    static func expected(catalog: RoutePolicy) -> [String: RoutePolicy] {
        [
            "GET /": .standard, "GET /openapi.yaml": .standard,
            "GET /health": probe, "GET /ready": probe, "GET /metrics": probe,
            "GET /products": catalog, "GET /products/{id}": catalog,
            "POST /products": .standard, "PATCH /products/{id}": .standard,
            "GET /users/me": accountRead, "GET /cart": accountRead, "GET /orders/{id}": accountRead,
            "PATCH /users/me": accountData, "GET /orders": accountData,
            "PUT /cart/items/{product_id}": accountData, "DELETE /cart/items/{product_id}": accountData,
            "DELETE /cart": accountData, "POST /checkout": accountData,
            "GET /wishlist": accountRead, "PUT /wishlist/items/{product_id}": accountData,
            "DELETE /wishlist/items/{product_id}": accountData,
            "POST /orders/{id}/cancel": accountData, "PATCH /orders/{id}": accountData,
            "PUT /orders/{id}/shipping_address": accountData, "GET /orders/{id}/history": accountRead,
            "POST /orders/{id}/payment": accountData, "POST /orders/{id}/refunds": accountData,
            "GET /orders/{id}/ledger": accountData, "GET /payments/ledger": accountData,
            "GET /payments/refunds-owed": accountData, "GET /payments/anomalies": accountData, "GET /admin/orders": accountData,
            "GET /admin/products": accountRead, "GET /admin/products/{id}": accountRead,
            "GET /admin/exports/orders": accountData, "GET /admin/exports/ledger": accountData,
            "GET /admin/jobs": accountData, "GET /admin/jobs/{id}": accountData,
            "POST /admin/jobs/{id}/retry": accountData, "POST /admin/jobs/{id}/discard": accountData,
            "POST /admin/webhooks": accountData, "GET /admin/webhooks": accountData,
            "GET /admin/webhooks/{id}": accountData, "PATCH /admin/webhooks/{id}": accountData,
            "DELETE /admin/webhooks/{id}": accountData, "POST /admin/webhooks/{id}/rotate-secret": accountData,
            "GET /admin/webhooks/{id}/deliveries": accountData, "POST /admin/webhooks/{id}/replay": accountData,
            "GET /admin/webhook-deliveries/{id}": accountData, "POST /admin/webhook-deliveries/{id}/retry": accountData,
            "GET /admin/webhook-events": accountData,
            "POST /events/tickets": accountData,
            "POST /users": accountData, "POST /sessions": accountData,
            "DELETE /sessions/current": accountData, "GET /users": accountData,
            "GET /users/{id}": accountData, "PATCH /users/{id}": accountData,
            "POST /password-resets": accountData, "POST /password-resets/complete": accountData,
            "POST /email-verifications": accountData, "POST /me/email-verifications": accountData,
            "GET /me/sessions": accountData, "DELETE /me/sessions/{id}": accountData, "DELETE /me": accountData,
            "GET /events": .standard, "GET /axiom/components": .standard,
            "POST /payments/webhook": .standard,
        ]
    }

    static func servedPolicies(_ configure: (inout ServerOptions) -> Void) async throws -> [String: RoutePolicy] {
        try await InProcessService.read(configure) { service in
            Dictionary(service.routes.map { ("\($0.method.rawValue) \($0.pattern)", $0.policy) },
                       uniquingKeysWith: { first, _ in first })
        }
    }

    static func compare(_ served: [String: RoutePolicy], _ expected: [String: RoutePolicy]) {
        #expect(Set(served.keys) == Set(expected.keys),
                "routes without a row: \(Set(served.keys).subtracting(expected.keys).sorted()); rows without a route: \(Set(expected.keys).subtracting(served.keys).sorted())")
        for (route, policy) in served.sorted(by: { $0.key < $1.key }) {
            #expect(policy == expected[route], "\(route): \(policy)")
        }
    }

    @Test func everyRouteHasTheDeclaredPolicy() async throws {
        let served = try await Self.servedPolicies { _ in }
        Self.compare(served, Self.expected(catalog: RoutePolicy(entityTag: true, cacheControl: "no-cache")))
    }

    @Test func catalogMaxAgeReachesBothCatalogueRoutesAndTheOperationsListenerKeepsProbes() async throws {
        let served = try await Self.servedPolicies {
            $0.catalogMaxAgeSeconds = 60
            $0.opsPort = 0
        }
        Self.compare(served, Self.expected(catalog: RoutePolicy(entityTag: true, cacheControl: "max-age=60")))
    }
}
