import Axiom
import Capabilities
import Domain
import FoundationEssentials
import Synchronization

/// The payments: the singleton owner of `PaymentState`. One payment per
/// order, made at checkout; afterwards its status moves along
/// `Payment.applying`, and money moves only as rows of the append-only
/// ledger (`payment_ledger`), each inserted in the same transaction as the
/// payment's new sums (`Payment.recording`), so the two always agree.
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
    private nonisolated let anomalyCount = Atomic<Int>(0)
    let storage: StorageAccess
    private let authenticator: CapabilityHandle<MessageAuthenticator>
    private let clock: any TimeSource
    /// Whether payment changes enqueue their mails (`PaymentMail`, only
    /// when something will send them) and their webhook events
    /// (`PaymentWebhookEvents`): what each change announces is decided
    /// once (`PaymentAnnouncement`).
    private let announcer: PaymentAnnouncer

    /// Over SQLite or PostgreSQL alike: the client only sees `StorageHandle`s.
    public init(storage: StorageAccess, authenticator: CapabilityHandle<MessageAuthenticator>,
                clock: any TimeSource, settings: PaymentSettings, mails: Bool = false, webhooks: Bool = false) {
        self.storage = storage
        announcer = PaymentAnnouncer(mails: mails, webhooks: webhooks)
        self.authenticator = authenticator
        self.clock = clock
        self.settings = settings
    }

    /// Provider events kept as anomalies since start-up (`/metrics`).
    public nonisolated var anomaliesKept: Int { anomalyCount.load(ordering: .relaxed) }

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
    public nonisolated func payment(_ id: PaymentID) async throws -> Payment {
        guard let payment = try await storage.storedRead({ try PaymentStore.payment($0, id: id) }) else {
            throw EntityError.notFound(entity: "payment", id: id.description)
        }
        return payment
    }

    public nonisolated func payment(forOrder orderID: OrderID) async throws -> Payment? {
        try await storage.storedRead { try PaymentStore.payment($0, order: orderID) }
    }

    /// The payments of these orders (one read transaction, one probe each).
    public nonisolated func payments(forOrders orderIDs: [OrderID]) async throws -> [OrderID: Payment] {
        try await storage.storedRead { handle in
            var found: [OrderID: Payment] = [:]
            for id in orderIDs {
                if let payment = try PaymentStore.payment(handle, order: id) { found[id] = payment }
            }
            return found
        }
    }

    /// The oldest `limit` payments whose change may not have reached their
    /// order and stock (through the partial index `payments_open`), changed
    /// at least `quietSeconds` ago by this client's clock: a younger one is
    /// usually a change whose request is still moving its order.
    public nonisolated func openPayments(limit: Int = 256, quietSeconds: Int = 0) async throws -> [Payment] {
        let changedBy = quietSeconds > 0 ? nowMilliseconds - Int64(quietSeconds) * 1000 : Int64.max
        return try await storage.storedRead { try PaymentStore.open($0, changedBy: changedBy, limit: limit) }
    }

    /// Every money movement of the order's payment, oldest first.
    public nonisolated func ledger(ofOrder orderID: OrderID) async throws -> [LedgerEntry] {
        try await storage.storedRead { handle in
            guard let payment = try PaymentStore.payment(handle, order: orderID) else { return [] }
            return try PaymentStore.entries(handle, payment: payment.id)
        }
    }

    /// Up to `limit` movements recorded in `[from, to)`, oldest first,
    /// after `position` (the last entry of the previous page).
    public nonisolated func ledger(from: Timestamp, to: Timestamp, after position: (Timestamp, Int64)?,
                       limit: Int) async throws -> [LedgerEntry] {
        try await storage.storedRead { handle in
            try PaymentStore.entries(handle, from: from.millisecondsSince1970, to: to.millisecondsSince1970,
                                     after: position.map { ($0.0.millisecondsSince1970, $0.1) }, limit: limit)
        }
    }

    /// Up to `limit` payments that owe money back (a cancelled paid order,
    /// a second payment), by id after `cursor`.
    public nonisolated func owingRefunds(after cursor: PaymentID?, limit: Int) async throws -> [Payment] {
        try await storage.storedRead { try PaymentStore.owing($0, after: cursor?.description, limit: limit) }
    }

    /// The earliest deadline of an unpaid payment, if any.
    public nonisolated func nextDeadline() async throws -> Timestamp? {
        try await storage.storedRead { try PaymentStore.nextDeadline($0) }.map(Timestamp.init(millisecondsSince1970:))
    }

    // MARK: Writes

    private nonisolated var nowMilliseconds: Int64 { clock.millisecondsSince1970() }

    /// The payment for a newly placed order: waiting, its amount the
    /// order's total, due `payment_timeout` from now (`manual_payment_timeout`
    /// days for a manual method). Idempotent by order id (the existing
    /// payment is answered, a cancelled one included).
    public func open(_ order: Order, method: PaymentMethod) async throws -> Payment {
        let now = nowMilliseconds
        let timeout = method.isManual ? settings.manualTimeoutDays * 86_400 : settings.timeoutSeconds
        let candidate = Payment.open(id: PaymentID(TimeOrderedUUID.make()), for: order, method: method,
                                     expiresAt: Timestamp(millisecondsSince1970: now + timeout * 1000))
        let announcer = self.announcer
        return try await storage.durableWrite { handle in
            // Inserted unless the order has its payment (on PostgreSQL after
            // a replica opening it concurrently commits): then that one.
            if try PaymentStore.insert(handle, candidate, at: now) {
                if method.isManual { try announcer.enqueue([.awaited], of: candidate, at: now, on: handle) }
                return candidate
            }
            guard let existing = try PaymentStore.payment(handle, order: order.id) else {
                throw PaymentDataError(description: "order \(order.id)'s payment insert stood aside, yet it has none")
            }
            return existing
        }
    }

    /// A provider event whose signature was checked (`verify`). Applied
    /// once per event id.
    public func apply(_ event: PaymentEvent) async throws -> PaymentReceipt {
        let now = nowMilliseconds
        let announcer = self.announcer
        let (receipt, previous): (PaymentReceipt, PaymentStatus)
        let sequence: Int64?
        do {
            ((receipt, previous), sequence) = try await storage.sequencedWrite { handle in
                // Locked: of replicas applying events of one payment at once
                // (one event delivered to all, or two events), each waits for
                // the previous commit and sees its event and sums.
                guard let stored = try PaymentStore.payment(handle, id: event.paymentID, locked: true) else {
                    throw EntityError.notFound(entity: "payment", id: event.paymentID.description)
                }
                if try PaymentStore.hasEvent(handle, id: event.id) {
                    return (PaymentReceipt(payment: stored, effect: .duplicate), stored.status)
                }
                guard let movement = event.movement else {
                    // A decline moves no money and leaves the payment payable.
                    try PaymentStore.insertEvent(handle, event, at: now)
                    try announcer.enqueue([.declined], of: stored, at: now, on: handle)
                    return (PaymentReceipt(payment: stored, effect: .unchanged), stored.status)
                }
                guard event.type != .paymentSucceeded || stored.amount == event.amount else {
                    throw PaymentError.amountMismatch(expected: stored.amount, got: event.amount)
                }
                try PaymentStore.insertEvent(handle, event, at: now)
                do {
                    guard let recorded = try Self.record(handle, movement, on: stored, at: now,
                                                         announcer: announcer) else {
                        return (PaymentReceipt(payment: stored, effect: .duplicate), stored.status)
                    }
                    return (PaymentReceipt(payment: recorded, effect: .applied), stored.status)
                } catch let refusal as PaymentError where !movement.kind.isIncoming {
                    let effect = try Self.keepAnomaly(handle, movement, of: event, on: stored, refused: refusal,
                                                      at: now)
                    return (PaymentReceipt(payment: stored, effect: effect), stored.status)
                }
            }
        } catch let error as StorageError where error.isUniqueViolation {
            // The checks above run in the writer's transaction under the
            // payment's row lock, so this is a backstop: the event id's or
            // the movement's unique key refused a second insert.
            return PaymentReceipt(payment: try await payment(event.paymentID), effect: .duplicate)
        }
        if receipt.effect == .applied { published(receipt.payment, from: previous, sequence: sequence) }
        if receipt.effect == .anomaly { anomalyCount.add(1, ordering: .relaxed) }
        return receipt
    }

    /// Records an admin's movement (money received or given back outside
    /// the provider) on the order's payment: a ledger entry with the admin
    /// as its actor; nil when the order has none. The same reference again
    /// answers the payment unchanged.
    public func record(_ movement: MoneyMovement, on orderID: OrderID) async throws -> Payment? {
        let now = nowMilliseconds
        let announcer = self.announcer
        let ((payment, previous), sequence) = try await storage.sequencedWrite { handle -> (Payment?, PaymentStatus?) in
            guard let stored = try PaymentStore.payment(handle, order: orderID, locked: true) else { return (nil, nil) }
            guard let recorded = try Self.record(handle, movement, on: stored, at: now, announcer: announcer) else {
                return (stored, nil)
            }
            return (recorded, stored.status)
        }
        if let previous, let payment { published(payment, from: previous, sequence: sequence) }
        return payment
    }

    /// Appends `movement` to the ledger and stores the payment's new sums
    /// and status, in the caller's transaction with the payment locked,
    /// with what it announces; nil when a movement of its kind under its
    /// reference is recorded already.
    private static func record(_ handle: any StorageHandle, _ movement: MoneyMovement, on stored: Payment,
                               at now: Int64, announcer: PaymentAnnouncer) throws -> Payment? {
        if let reference = movement.reference,
           try PaymentStore.hasMovement(handle, payment: stored.id, kind: movement.kind, reference: reference) {
            return nil
        }
        var next = try stored.recording(movement)
        try PaymentStore.insertEntry(handle, movement, of: stored, at: now, exceedsPaid: false)
        if movement.kind.isIncoming { next = try applyHeldAnomalies(handle, on: next, at: now) }
        try PaymentStore.update(handle, next, at: now)
        try recordChange(handle, next, from: stored.status)
        try announcer.enqueue(PaymentAnnouncement.recorded(movement, on: stored, making: next), of: next, at: now,
                              on: handle)
        return next
    }

    /// The order is about to ship: refused unless its payment is paid
    /// (`order_not_paid`), decided under the payment's row lock, so a
    /// cancel of the same order either comes first (and this refuses) or
    /// after (and is refused). Nil for an order without a payment.
    public func fulfil(_ orderID: OrderID) async throws -> Payment? {
        let change = PaymentChange.fulfilling
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

    /// Cancels the order's payment; an order whose payment is not open yet
    /// (its checkout a step behind the cancel) gets one, cancelled, so the
    /// checkout's open finds it and a success arriving later is owed back.
    /// A paid one owes a refund, a shipping one refuses (`order_shipped`).
    public func orderCancelled(_ order: Order) async throws -> Payment {
        let now = nowMilliseconds
        let tombstone = Payment(id: PaymentID(TimeOrderedUUID.make()), orderID: order.id, userID: order.userID,
                                status: .cancelled, amount: order.total, method: .provider,
                                expiresAt: Timestamp(millisecondsSince1970: now), reference: nil)
        let announcer = self.announcer
        let ((payment, previous), sequence) = try await storage.sequencedWrite { handle -> (Payment, PaymentStatus?) in
            var found = try PaymentStore.payment(handle, order: order.id, locked: true)
            if found == nil {
                if try PaymentStore.insert(handle, tombstone, at: now) { return (tombstone, nil) }
                // A replica's checkout opened it meanwhile (its insert
                // committed while this one waited): that one is cancelled.
                found = try PaymentStore.payment(handle, order: order.id, locked: true)
            }
            guard let stored = found else {
                throw PaymentDataError(description: "order \(order.id)'s payment insert stood aside, yet it has none")
            }
            guard let next = try stored.applying(.orderCancelled) else { return (stored, nil) }
            try PaymentStore.update(handle, next, at: now)
            try Self.recordChange(handle, next, from: stored.status)
            if let owed = PaymentAnnouncement.owing(next, after: stored) {
                try announcer.enqueue([owed], of: next, at: now, on: handle)
            }
            return (next, stored.status)
        }
        if let previous { published(payment, from: previous, sequence: sequence) }
        return payment
    }

    /// Expires up to `limit` unpaid payments whose deadline has passed.
    public func expireDue(limit: Int) async throws -> [Payment] {
        let now = nowMilliseconds
        let announcer = self.announcer
        let expired = try await storage.durableWrite { handle in
            try PaymentStore.due(handle, now: now, limit: limit).compactMap { due -> Payment? in
                guard let next = try due.applying(.expired) else { return nil }
                try PaymentStore.update(handle, next, at: now)
                if let owed = PaymentAnnouncement.owing(next, after: due) {
                    try announcer.enqueue([owed], of: next, at: now, on: handle)
                }
                return next
            }
        }
        // Expiry cancels the order, whose change is the outbox row (`recordChange`).
        for payment in expired { published(payment, from: .requiresPayment, sequence: nil) }
        return expired
    }

    /// The payment's change to this status finished its work in the other
    /// clients. A newer change (another status) stays open for its own
    /// caller or reconciliation.
    public func settle(_ id: PaymentID, _ status: PaymentStatus) async throws -> Payment {
        try await storage.durableWrite { handle in
            try PaymentStore.settle(handle, id: id, status: status)
            guard let payment = try PaymentStore.payment(handle, id: id) else {
                throw EntityError.notFound(entity: "payment", id: id.description)
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
