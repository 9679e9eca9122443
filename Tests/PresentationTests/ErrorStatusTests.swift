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

    @Test func everyDomainPaymentAuthenticationAndCheckoutErrorIsA4xxOr503() throws {
        let product = ProductID(UUID()), order = OrderID(UUID()), user = UserID(UUID()), payment = PaymentID(UUID())
        let money = Money(amount: 100, currency: .usd)
        let domain: [DomainError] = [
            .validation(ValidationError([FieldError(field: "f", code: .required, message: "m")])),
            .insufficientStock(productID: product, requested: 2, available: 1), .productInactive(product),
            .illegalTransition(from: .pending, to: .delivered), .emptyCart, .currencyMismatch(.usd, .eur), .overflow,
            .duplicate(field: "email", value: "a@example.com"), .notFound(entity: "order", id: "x"),
            .userSuspended(user), .lastAdmin(user), .preconditionFailed(entity: "product"),
            .stockLimitExceeded(productID: product, returned: 1, stock: 1), .idempotencyKeyReused,
            .shippingAddressRequired(order), .shippingAddressLocked(order, status: .shipped),
        ]
        for error in domain {
            switch error {  // exhaustive: a new case must be added above
            case .validation, .insufficientStock, .productInactive, .illegalTransition, .emptyCart, .currencyMismatch,
                 .overflow, .duplicate, .notFound, .userSuspended, .lastAdmin, .preconditionFailed, .stockLimitExceeded,
                 .idempotencyKeyReused, .shippingAddressRequired, .shippingAddressLocked: break
            }
            let answer = try #require(error.httpError, "\(error)")
            #expect((400..<500).contains(answer.status.code), "\(error) → \(answer.status.code)")
        }
        let payments: [PaymentError] = [
            .invalidSignature("bad"), .notConfigured, .amountMismatch(expected: money, got: money),
            .illegalTransition(payment, from: .succeeded, to: .requiresPayment),
            .refundExceedsPaid(payment, refundable: money), .orderNotPaid(payment, status: .requiresPayment),
            .orderShipped(payment),
        ]
        for error in payments {
            switch error {
            case .invalidSignature, .notConfigured, .amountMismatch, .illegalTransition, .refundExceedsPaid,
                 .orderNotPaid, .orderShipped: break
            }
            let answer = try #require(error.httpError, "\(error)")
            #expect((400..<500).contains(answer.status.code) || answer.status == .serviceUnavailable, "\(error)")
        }
        let authentication: [AuthenticationError] = [
            .invalidCredentials, .tooManyAttempts(retryAfterSeconds: 1), .invalidToken, .invalidTicket,
        ]
        for error in authentication {
            switch error {
            case .invalidCredentials, .tooManyAttempts, .invalidToken, .invalidTicket: break
            }
            let answer = try #require(error.httpError, "\(error)")
            #expect((400..<500).contains(answer.status.code), "\(error)")
        }
        #expect(AccessDenied("no").httpError?.status == .forbidden)
        let unpaid: [UnpaidOrderLimitError] = [.tooManyOrders(limit: 5), .tooManyUnits(limit: 100, held: 99)]
        for error in unpaid {
            switch error {
            case .tooManyOrders, .tooManyUnits: break
            }
            #expect(error.httpError?.status == .conflict, "\(error)")
        }
        let hashing = try #require(PasswordHashingBusy(retryAfterSeconds: 1).httpError)
        #expect(hashing.status == .serviceUnavailable && hashing.headers["retry-after"] == "1")
    }
}
