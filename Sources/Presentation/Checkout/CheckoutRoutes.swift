import Contexts
import Domain
import HTTPServer

/// `POST /checkout` (honours `Idempotency-Key`; an optional body chooses
/// the payment method and gives the shipping address, `CheckoutBody`),
/// bound to the session's CheckoutContext.
public struct CheckoutRoutes: RouteGroup {
    public typealias Bound = CheckoutContext
    let checkout: SessionBinding<CheckoutContext>
    let limit: RouteClassRateLimit

    public init(gate: SessionGate, limit: RouteClassRateLimit = RouteClassRateLimit(nil)) {
        checkout = SessionBinding(gate: gate)
        self.limit = limit
    }

    public func register(on router: inout Router) {
        router.on(.post, "/checkout", policy: .accountData, checkout.handler { [limit] request in
            try await limit.guarding(request.http) {
                let key = try Self.idempotencyKey(request.http)
                let (method, address) = try CheckoutBody.decode(request.http)
                let (order, _) = try await request.context.checkout(idempotencyKey: key,
                                                                    paymentMethod: method, shippingAddress: address)
                // A retried key answers exactly as the first time.
                return .json(.created, OrderJSON.bytes(order), headers: ["Location": "/orders/\(order.order.id)"])
            }
        })
    }

    /// 1–255 visible ASCII characters, or absent.
    static func idempotencyKey(_ request: HTTPRequest) throws -> String? {
        guard let key = request.headers["idempotency-key"] else { return nil }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw ValidationError([FieldError(
                field: "Idempotency-Key", code: .invalidFormat,
                message: "Idempotency-Key must be 1 to 255 visible ASCII characters")])
        }
        return key
    }
}
