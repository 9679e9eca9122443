import Axiom
import Capabilities
import Domain
import FoundationEssentials

/// The payments: the singleton owner of `PaymentState`. One payment per
/// order, made at checkout; afterwards only its status (and, for a manual
/// payment, its method and reference) moves, along `Payment.applying`.
///
/// Payments are read from storage (SQLite or PostgreSQL) per request
/// through indexes and none is held in memory: nothing a client holds
/// grows with the shop's history. Every change commits (`durableWrite`) before it is published
/// or answered; a provider event's id is inserted in the same transaction as
/// the change it causes, so a replay changes nothing (`payment_events`'s
/// primary key). Which change wins when a cancel, an expiry and a provider
/// event meet is decided here, one write transaction at a time, never by
/// the callers.
public actor PaymentClient: StatefulClient {
    public static let migrations: [Migration] = PaymentStore.migrations

    public nonisolated let stateBroadcaster = StateBroadcaster<PaymentUpdate>(bufferLimit: 256)
    public private(set) var state = PaymentState()
    public nonisolated let settings: PaymentSettings
    let storage: StorageAccess
    private let authenticator: CapabilityHandle<MessageAuthenticator>
    private let clock: any TimeSource

    /// Over SQLite or PostgreSQL alike: the client only sees `StorageHandle`s.
    public init(storage: StorageAccess, authenticator: CapabilityHandle<MessageAuthenticator>,
                clock: any TimeSource, settings: PaymentSettings) {
        self.storage = storage
        self.authenticator = authenticator
        self.clock = clock
        self.settings = settings
    }

    /// Reads nothing: payments are read when asked for.
    public func activate() async throws {}

    public func deactivate() async {
        stateBroadcaster.finish()
    }

    // MARK: Signatures

    /// Checks a webhook's `Axiom-Signature` against the raw body bytes:
    /// `payments_not_configured` without a secret; `invalid_signature` for a
    /// missing or malformed header, a `t` further than the tolerance from
    /// now (a captured delivery replayed later), or no `v1` that is the
    /// HMAC-SHA256 of `"<t>.<body>"` (compared in constant time).
    public nonisolated func verify(signature header: String?, body: [UInt8]) throws(PaymentError) {
        guard let secret = settings.webhookSecret else { throw .notConfigured }
        let signature = try WebhookSignature(header: header)
        let now = clock.wallClockNow().components.seconds
        let (skew, overflow) = now.subtractingReportingOverflow(signature.timestamp)
        guard !overflow, skew.magnitude <= settings.webhookToleranceSeconds.magnitude else {
            throw .invalidSignature("timestamp outside the tolerance")
        }
        let payload = signature.signedPayload(body: body)
        let authenticator = authenticator.current
        // Every candidate is checked (no early exit), so timing does not
        // tell which one matched.
        var matched = false
        for candidate in signature.signatures where authenticator.verify(candidate, key: secret, message: payload) {
            matched = true
        }
        guard matched else { throw .invalidSignature("no v1 matches the body") }
    }

    // MARK: Reads (storage, by index)

    /// `payment_not_found`.
    public func payment(_ id: PaymentID) async throws -> Payment {
        guard let payment = try await storage.storedRead({ try PaymentStore.payment($0, id: id) }) else {
            throw DomainError.notFound(entity: "payment", id: id.description)
        }
        return payment
    }

    public func payment(forOrder orderID: OrderID) async throws -> Payment? {
        try await storage.storedRead { try PaymentStore.payment($0, order: orderID) }
    }

    /// The payments of these orders (one read transaction, one probe each).
    public func payments(forOrders orderIDs: [OrderID]) async throws -> [OrderID: Payment] {
        try await storage.storedRead { handle in
            var found: [OrderID: Payment] = [:]
            for id in orderIDs {
                if let payment = try PaymentStore.payment(handle, order: id) { found[id] = payment }
            }
            return found
        }
    }

    /// The oldest `limit` payments whose change may not have reached their
    /// order and stock (through the partial index `payments_open`).
    public func openPayments(limit: Int = 256) async throws -> [Payment] {
        try await storage.storedRead { try PaymentStore.open($0, limit: limit) }
    }

    /// The earliest deadline of an unpaid payment, if any.
    public func nextDeadline() async throws -> Timestamp? {
        try await storage.storedRead { try PaymentStore.nextDeadline($0) }.map(Timestamp.init(millisecondsSince1970:))
    }

    // MARK: Writes

    private var nowMilliseconds: Int64 { clock.millisecondsSince1970() }

    func open(_ order: Order) async throws -> Payment {
        let now = nowMilliseconds
        let candidate = Payment.open(id: PaymentID(TimeOrderedUUID.make()), for: order,
                                     expiresAt: Timestamp(millisecondsSince1970: now + settings.timeoutSeconds * 1000))
        return try await storage.durableWrite { handle in
            if let existing = try PaymentStore.payment(handle, order: order.id) { return existing }
            try PaymentStore.insert(handle, candidate, at: now)
            return candidate
        }
    }

    func apply(_ event: PaymentEvent) async throws -> PaymentReceipt {
        let now = nowMilliseconds
        let (receipt, previous): (PaymentReceipt, PaymentStatus)
        let sequence: Int64?
        do {
            ((receipt, previous), sequence) = try await storage.sequencedWrite { handle in
                // Locked: of replicas applying events of one payment at once
                // (one event delivered to all, or two events), each waits for
                // the previous commit and sees its event and status.
                guard let stored = try PaymentStore.payment(handle, id: event.paymentID, locked: true) else {
                    throw DomainError.notFound(entity: "payment", id: event.paymentID.description)
                }
                if try PaymentStore.hasEvent(handle, id: event.id) {
                    return (PaymentReceipt(payment: stored, effect: .duplicate), stored.status)
                }
                guard stored.amount == event.amount else {
                    throw PaymentError.amountMismatch(expected: stored.amount, got: event.amount)
                }
                let changed = try stored.applying(PaymentChange(event.type))
                try PaymentStore.insertEvent(handle, event, at: now)
                guard let changed else { return (PaymentReceipt(payment: stored, effect: .unchanged), stored.status) }
                try PaymentStore.update(handle, changed, at: now)
                try Self.recordChange(handle, changed, from: stored.status)
                return (PaymentReceipt(payment: changed, effect: .applied), stored.status)
            }
        } catch let error as StorageError where error.isUniqueViolation {
            // The check above runs in the writer's transaction under the
            // payment's row lock, so this is a backstop: the event id's
            // primary key refused a second insert.
            return PaymentReceipt(payment: try await payment(event.paymentID), effect: .duplicate)
        }
        if receipt.effect == .applied { published(receipt.payment, from: previous, sequence: sequence) }
        return receipt
    }

    /// Applies `change` to the order's payment; nil when the order has none.
    func change(_ orderID: OrderID, _ change: PaymentChange) async throws -> Payment? {
        let now = nowMilliseconds
        let ((payment, previous), sequence) = try await storage.sequencedWrite { handle -> (Payment?, PaymentStatus?) in
            guard let stored = try PaymentStore.payment(handle, order: orderID, locked: true) else { return (nil, nil) }
            guard let next = try stored.applying(change) else { return (stored, nil) }
            try PaymentStore.update(handle, next, at: now)
            try Self.recordChange(handle, next, from: stored.status)
            return (next, stored.status)
        }
        if let previous, let payment { published(payment, from: previous, sequence: sequence) }
        return payment
    }

    func expireDue(limit: Int) async throws -> [Payment] {
        let now = nowMilliseconds
        let expired = try await storage.durableWrite { handle in
            try PaymentStore.due(handle, now: now, limit: limit).compactMap { due -> Payment? in
                guard let next = try due.applying(.expired) else { return nil }
                try PaymentStore.update(handle, next, at: now)
                return next
            }
        }
        // Expiry cancels the order, whose change is the outbox row (`recordChange`).
        for payment in expired { published(payment, from: .requiresPayment, sequence: nil) }
        return expired
    }

    func settle(_ id: PaymentID, at status: PaymentStatus) async throws -> Payment {
        try await storage.durableWrite { handle in
            try PaymentStore.settle(handle, id: id, status: status)
            guard let payment = try PaymentStore.payment(handle, id: id) else {
                throw DomainError.notFound(entity: "payment", id: id.description)
            }
            return payment
        }
    }

    private func published(_ payment: Payment, from previous: PaymentStatus, sequence: Int64?) {
        state.record(payment.status)
        stateBroadcaster.publish(.changed(payment, from: previous, sequence: sequence), key: payment.userID)
    }

    /// Records a payment change in the outbox (keyed by its order, for its
    /// user) when its order does not follow it: a change the order follows
    /// reaches other processes as that order's change, which comes after.
    static func recordChange(_ handle: any StorageHandle, _ payment: Payment, from previous: PaymentStatus) throws {
        guard payment.status.orderFollows == previous.orderFollows else { return }
        try handle.recordChange(ChangeRecord(kind: .payment, key: payment.orderID.description,
                                             userID: payment.userID.description))
    }
}
