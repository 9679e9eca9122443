import Domain
import HTTPServer

/// The one door into Presentation's JSON reading for fuzzing: behind
/// `@_spi(Fuzzing)`, so it is not part of the module's API (as
/// HTTPServer's `ParserFuzzing`). The libFuzzer target
/// (Sources/JSONBodyFuzzer) and `JSONFuzzingTests` feed it arbitrary bytes.
///
/// For one input it runs the strict syntax check, decodes the bytes as the
/// body of every route that reads one, validates what decodes, runs the cart
/// fast path beside the full decoder, and puts the bytes as text through the
/// text rules (NFC, byte and mark bounds) and the media-type check. It never
/// traps by itself: a broken invariant is returned and the caller decides.
@_spi(Fuzzing)
public enum JSONFuzzing {
    /// Broken invariants for `bytes`; empty when all hold.
    public static func violations(_ bytes: [UInt8]) -> [String] {
        var violations: [String] = []
        _ = JSONSyntax.check(bytes)
        let request = HTTPRequest(method: .put, target: "/", headers: HTTPFields([("content-type", "application/json")]),
                                  path: "/", pathSegments: [], body: bytes)

        violations += decodeOutcome(NewUserRequest.self, request) { $0.validate().map { _ in "invalid" } }
        violations += decodeOutcome(RegistrationRoutes.LoginRequest.self, request) { _ in nil }
        violations += decodeOutcome(UserProfilePatch.self, request) { $0.validate().map { _ in "invalid" } }
        violations += decodeOutcome(UserAdminPatch.self, request) { $0.validate().map { _ in "invalid" } }
        violations += decodeOutcome(ProductDraft.self, request) { $0.validate().map { _ in "invalid" } }
        violations += decodeOutcome(ProductPatch.self, request) { patch in
            do {
                _ = try patch.applied(to: sampleProduct)
                return nil
            } catch {
                return "refused"
            }
        }
        violations += decodeOutcome(AdminRoutes.StatusBody.self, request) { _ in nil }
        violations += decodeOutcome(CheckoutBody.self, request) { _ in nil }
        violations += decodeOutcome(ManualPaymentBody.self, request) { body in
            (try? MoneyReference.validate(reference: body.reference, amount: body.amount)) == nil ? "invalid" : nil
        }
        violations += decodeOutcome(ManualRefundBody.self, request) { body in
            (try? MoneyReference.validate(reference: body.reference, amount: body.amount)) == nil ? "invalid" : nil
        }
        violations += decodeOutcome(PaymentEventBody.Envelope.self, request) { _ in nil }
        violations += decodeOutcome(PaymentEventBody.self, request) { _ in nil }
        violations += fastPathAgreement(request)

        // The same bytes as text: the text rules and the media-type parser
        // must take anything without trapping.
        let text = String(decoding: bytes, as: UTF8.self)
        _ = NewUserRequest(name: text, email: text, password: text).validate()
        _ = ProductDraft(sku: text, name: text, description: text, price: Money(amount: 1, currency: .usd)).validate()
        _ = JSONMediaType.accepts(text)
        return violations
    }

    /// Decodes `bytes` as `T`; a refusal must be an HTTP problem with a 4xx
    /// status, never anything that would become a 500.
    private static func decodeOutcome<T: Decodable>(_ type: T.Type, _ request: HTTPRequest,
                                                    _ validate: (T) -> String?) -> [String] {
        do {
            _ = validate(try JSONBody.decode(T.self, from: request))
            return []
        } catch let error as HTTPError where (400..<500).contains(error.status.code) {
            return []
        } catch {
            return ["\(T.self): not a 4xx problem: \(error)"]
        }
    }

    /// Whatever `SoleIntegerMember` reads, the full decoder reads the same
    /// (and where it steps aside, `QuantityBody.from` is the full decoder).
    private static func fastPathAgreement(_ request: HTTPRequest) -> [String] {
        guard let fast = SoleIntegerMember.value(named: "quantity", in: request.body) else { return [] }
        do {
            let full = try JSONBody.decode(CartRoutes.QuantityBody.self, from: request)
            return full.quantity == fast ? [] : ["fast path read \(fast), the decoder \(full.quantity)"]
        } catch {
            return ["fast path read \(fast), the decoder refused: \(error)"]
        }
    }

    private static let sampleProduct = Product(id: ProductID("00000000-0000-4000-8000-000000000001")!, sku: "FUZZ-1",
                                               name: "Fuzz", price: Money(amount: 100, currency: .usd), stock: 5)
}
