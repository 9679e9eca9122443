import Axiom
import Domain
import Foundation
import HTTPServer
import Testing
@testable import Presentation

/// Every case of every error the domain and the runtime can raise into a
/// handler, built one by one (none is CaseIterable: they carry values),
/// and the status it is answered with: no expected condition may fall
/// through to 500. A `switch` over each type below fails to compile when a
/// case is added, so a new case cannot be left out of this walk.
@Suite struct ErrorStatusTests {
    /// The AxiomError cases that stay 500: each is a wiring fault of the
    /// server itself (a capability or client not registered or registered
    /// twice, a component resolving what it did not declare, a context graph
    /// with a cycle, an architecture constraint violated at start-up, a
    /// context created outside its factory or not found by the runtime
    /// that made it, the orchestrator used before start or started twice).
    /// No request can cause one; a client retrying would meet it again, so
    /// it is logged as a fault.
    static let internalFaults: Set<String> = [
        "capabilityNotRegistered", "capabilityAlreadyRegistered", "undeclaredDependency", "clientNotRegistered",
        "clientAlreadyRegistered", "clientActivationFailed", "presentationAlreadyBound", "orchestratorAlreadyRunning",
        "orchestratorAlreadyStarted", "orchestratorNotStarted", "contextCreationOutsideFactory", "contextNotFound",
        "contextCycle", "undeclaredDownstream", "constraintViolations",
    ]

    static func axiomErrors() throws -> [(String, AxiomError)] {
        let context = try JSONDecoder().decode(ContextID.self, from: Data("7".utf8))
        let report = try JSONDecoder().decode(ValidationReport.self, from: Data(
            #"{"passed":false,"checks":[],"components":[],"liveContexts":0,"contextEdges":0}"#.utf8))
        let all: [AxiomError] = [
            .capabilityNotRegistered("Storage"), .capabilityAlreadyRegistered("Storage"), .capabilityUnavailable("Storage"),
            .capabilityOutcomeUnknown("Storage"), .undeclaredDependency(component: "A", dependency: "B"),
            .clientNotRegistered("C"), .clientAlreadyRegistered("C"), .clientActivationFailed(client: "C", reason: "r"),
            .presentationAlreadyBound(presentation: "P", context: "C"), .orchestratorAlreadyRunning,
            .orchestratorAlreadyStarted, .orchestratorNotStarted, .orchestratorShutDown,
            .contextCreationOutsideFactory("C"), .contextNotFound(context),
            .contextCycle(upstream: context, downstream: context), .undeclaredDownstream(upstream: "U", downstream: "D"),
            .sessionEnded(SessionID("s")), .sessionCapacityExhausted(limit: 1), .constraintViolations(report),
        ]
        return all.map { (name($0), $0) }
    }

    /// The case's name; the exhaustive switch is what makes this walk complete.
    static func name(_ error: AxiomError) -> String {
        switch error {
        case .capabilityNotRegistered: "capabilityNotRegistered"
        case .capabilityAlreadyRegistered: "capabilityAlreadyRegistered"
        case .capabilityUnavailable: "capabilityUnavailable"
        case .capabilityOutcomeUnknown: "capabilityOutcomeUnknown"
        case .undeclaredDependency: "undeclaredDependency"
        case .clientNotRegistered: "clientNotRegistered"
        case .clientAlreadyRegistered: "clientAlreadyRegistered"
        case .clientActivationFailed: "clientActivationFailed"
        case .presentationAlreadyBound: "presentationAlreadyBound"
        case .orchestratorAlreadyRunning: "orchestratorAlreadyRunning"
        case .orchestratorAlreadyStarted: "orchestratorAlreadyStarted"
        case .orchestratorNotStarted: "orchestratorNotStarted"
        case .orchestratorShutDown: "orchestratorShutDown"
        case .contextCreationOutsideFactory: "contextCreationOutsideFactory"
        case .contextNotFound: "contextNotFound"
        case .contextCycle: "contextCycle"
        case .undeclaredDownstream: "undeclaredDownstream"
        case .sessionEnded: "sessionEnded"
        case .sessionCapacityExhausted: "sessionCapacityExhausted"
        case .constraintViolations: "constraintViolations"
        }
    }

    @Test func everyRuntimeConditionHasAStatusAndOnlyWiringFaultsAre500() throws {
        let errors = try Self.axiomErrors()
        #expect(Set(errors.map(\.0)).count == 20)
        for (name, error) in errors {
            if Self.internalFaults.contains(name) {
                #expect(error.httpError == nil, "\(name) is a wiring fault, answered 500")
            } else {
                let answer = try #require(error.httpError, "\(name) is an expected condition, not a 500")
                #expect(answer.status == .serviceUnavailable, "\(name)")
                #expect(answer.headers["retry-after"] != nil, "\(name) says when to retry")
            }
        }
        let busy = try #require(AxiomError.sessionCapacityExhausted(limit: 1).httpError)
        #expect(busy.code == "sessions_exhausted" && busy.headers["retry-after"] == "1")
    }

    /// Every case of every refusal the features declare, with the status and
    /// code the API answers it with (openapi.yaml names them). The switch
    /// per enum is exhaustive, so a new case fails to compile until it is
    /// given its answer here, and the walk below checks every case is listed.
    static func refusals() -> [any Refusal] {
        let product = ProductID(UUID()), order = OrderID(UUID()), user = UserID(UUID()), payment = PaymentID(UUID())
        let money = Money(amount: 100, currency: .usd)
        let cases: [[any Refusal]] = [
            [ValidationError([FieldError(field: "f", code: .required, message: "m")])],
            [EntityError.notFound(entity: "order", id: "x"), EntityError.duplicate(field: "email", value: "a@example.com"),
             EntityError.preconditionFailed(entity: "product")], [Overflow()], [CurrencyMismatch(.usd, .eur)],
            [CartError.emptyCart],
            [CatalogError.insufficientStock(productID: product, requested: 2, available: 1),
             CatalogError.productInactive(product), CatalogError.stockLimitExceeded(productID: product, returned: 1, stock: 1)],
            [OrderError.illegalTransition(from: .pending, to: .delivered), OrderError.idempotencyKeyReused,
             OrderError.shippingAddressRequired(order), OrderError.shippingAddressLocked(order, status: .shipped)],
            [UnpaidOrderLimitError.tooManyOrders(limit: 5), UnpaidOrderLimitError.tooManyUnits(limit: 100, held: 99)],
            [UserError.userSuspended(user), UserError.lastAdmin(user), UserError.emailNotVerified(user),
             UserError.userDeleted(user)],
            [AccountTokenError.resetTokenInvalid, AccountTokenError.verificationTokenInvalid], [MailNotConfigured()],
            [AuthenticationError.invalidCredentials, AuthenticationError.tooManyAttempts(retryAfterSeconds: 7),
             AuthenticationError.invalidToken, AuthenticationError.invalidTicket],
            [AccessDenied("no")], [PasswordHashingBusy(retryAfterSeconds: 1)],
            [PaymentError.invalidSignature("bad"), PaymentError.notConfigured,
             PaymentError.amountMismatch(expected: money, got: money),
             PaymentError.illegalTransition(payment, from: .succeeded, to: .requiresPayment),
             PaymentError.refundExceedsPaid(payment, refundable: money),
             PaymentError.orderNotPaid(payment, status: .requiresPayment), PaymentError.orderShipped(payment)],
            [JobError.notInState(id: 1, state: .running, action: "retried"), JobError.payloadErased(id: 1),
             JobError.duplicateQueued(id: 1, kind: "k")],
            [WebhookError.invalid(ValidationError([FieldError(field: "url", code: .invalidFormat, message: "m")])),
             WebhookError.urlRefused(host: "localhost", addresses: ["127.0.0.1"]),
             WebhookError.urlUnresolvable(host: "nowhere.invalid"), WebhookError.endpointNotFound(id: "ep_1"),
             WebhookError.deliveryNotFound(id: "1"), WebhookError.endpointDisabled(id: "ep_1")],
        ]
        return cases.flatMap { $0 }
    }

    /// How many cases `refusals()` must list: one per case of each enum.
    static let refusalCases = 1 + 3 + 1 + 1 + 1 + 3 + 4 + 2 + 4 + 2 + 1 + 4 + 1 + 1 + 7 + 3 + 6

    /// The status and code the API answers `refusal` with.
    static func answer(_ refusal: any Refusal) -> (status: Int, code: String)? {
        switch refusal {
        case is ValidationError: (422, "validation_failed")
        case let entity as EntityError:
            switch entity {
            case .notFound(let name, _): (404, "\(name)_not_found")
            case .duplicate(let field, _): (409, "duplicate_\(field)")
            case .preconditionFailed: (412, "precondition_failed")
            }
        case is Overflow: (422, "overflow")
        case is CurrencyMismatch: (422, "currency_mismatch")
        case let cart as CartError:
            switch cart {
            case .emptyCart: (409, "empty_cart")
            }
        case let catalog as CatalogError:
            switch catalog {
            case .insufficientStock: (409, "insufficient_stock")
            case .productInactive: (409, "product_inactive")
            case .stockLimitExceeded: (409, "stock_limit_exceeded")
            }
        case let order as OrderError:
            switch order {
            case .illegalTransition: (409, "illegal_transition")
            case .idempotencyKeyReused: (422, "idempotency_key_reused")
            case .shippingAddressRequired: (409, "shipping_address_required")
            case .shippingAddressLocked: (409, "shipping_address_locked")
            }
        case let unpaid as UnpaidOrderLimitError:
            switch unpaid {
            case .tooManyOrders: (409, "too_many_unpaid_orders")
            case .tooManyUnits: (409, "too_many_unpaid_units")
            }
        case let account as UserError:
            switch account {
            case .userSuspended: (409, "user_suspended")
            case .lastAdmin: (409, "last_admin")
            case .emailNotVerified: (409, "email_not_verified")
            case .userDeleted: (409, "user_deleted")
            }
        case let token as AccountTokenError:
            switch token {
            case .resetTokenInvalid: (422, "reset_token_invalid")
            case .verificationTokenInvalid: (422, "verification_token_invalid")
            }
        case is MailNotConfigured: (409, "mail_not_configured")
        case let authentication as AuthenticationError:
            switch authentication {
            case .invalidCredentials: (401, "invalid_credentials")
            case .tooManyAttempts: (429, "too_many_attempts")
            case .invalidToken: (401, "invalid_token")
            case .invalidTicket: (401, "invalid_ticket")
            }
        case is AccessDenied: (403, "forbidden")
        case is PasswordHashingBusy: (503, "password_hashing_busy")
        case let payment as PaymentError:
            switch payment {
            case .invalidSignature: (400, "invalid_signature")
            case .notConfigured: (503, "payments_not_configured")
            case .amountMismatch: (422, "amount_mismatch")
            case .illegalTransition: (409, "illegal_payment_transition")
            case .refundExceedsPaid: (422, "refund_exceeds_paid")
            case .orderNotPaid: (409, "order_not_paid")
            case .orderShipped: (409, "order_shipped")
            }
        case let job as JobError:
            switch job {
            case .notInState: (409, "job_state_conflict")
            case .payloadErased: (409, "job_payload_erased")
            case .duplicateQueued: (409, "job_duplicate_queued")
            }
        case let webhook as WebhookError:
            switch webhook {
            case .invalid: (422, "webhook_url_invalid")
            case .urlRefused: (422, "webhook_url_refused")
            case .urlUnresolvable: (422, "webhook_url_unresolvable")
            case .endpointNotFound: (404, "webhook_endpoint_not_found")
            case .deliveryNotFound: (404, "webhook_delivery_not_found")
            case .endpointDisabled: (409, "webhook_endpoint_disabled")
            }
        default: nil
        }
    }

    @Test func everyRefusalIsA4xxOr503WithItsCodeAndMessage() throws {
        let refusals = Self.refusals()
        #expect(Set(refusals.map(\.description)).count == Self.refusalCases, "every case is listed once")
        for refusal in refusals {
            let expected = try #require(Self.answer(refusal), "\(type(of: refusal)) has no answer in this test")
            // What the router answers a handler that threw it with.
            let problem = try #require(RefusalProblem.problem(for: refusal), "\(refusal) is answered 500")
            #expect((400..<500).contains(problem.status.code) || problem.status == .serviceUnavailable, "\(refusal)")
            #expect(problem.status.code == expected.status && problem.code == expected.code, "\(refusal)")
            #expect(problem.detail == refusal.message && !refusal.message.isEmpty)
            if problem.status == .tooManyRequests || problem.code == "password_hashing_busy" {
                #expect(problem.headers["retry-after"] == refusal.retryAfterSeconds.map(String.init), "\(refusal)")
            }
            if problem.status == .unauthorized {
                #expect(problem.headers["www-authenticate"]?.hasPrefix("Bearer realm=\"axiom\"") == true)
            }
        }
        #expect(RefusalProblem.problem(for: CancellationError()) == nil, "an error that is no refusal stays a 500")
        for category in RefusalCategory.allCases {
            let status = RefusalProblem.status(of: category)
            #expect((400..<500).contains(status.code) || status == .serviceUnavailable, "\(category)")
        }
    }

    /// Every type in Sources that conforms to `Refusal`, found by reading
    /// the declarations: a new refusal type fails this until `refusals()`
    /// lists its cases.
    @Test func everyRefusalTypeInSourcesIsListed() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let declaration = try Regex(#"(?:enum|struct|class|actor|extension)\s+(\w+)\s*:[^{]*\bRefusal\b"#)
        var declared: Set<String> = []
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: declaration) {
                if let name = match.output[1].substring { declared.insert(String(name)) }
            }
        }
        #expect(declared.count >= 13, "the scan finds the declarations")
        #expect(declared == Set(Self.refusals().map { String(describing: type(of: $0)) }))
    }
}
