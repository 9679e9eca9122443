import Capabilities
import Domain
import FoundationEssentials

/// The anomalies' SQL (migration 502): a row per provider refund or
/// chargeback the ledger could not take (`PaymentAnomaly`); `applied_at`
/// is set once later money let the ledger take a held one. Reads are
/// ranges of `payment_anomalies_held` (one payment's held rows, in the
/// order they came) and the primary key (the admin's list, keyset paged).
extension PaymentStore {
    /// The unique (payment, kind, reference) records a second event for the
    /// same refund once, as the ledger's does.
    static let anomaliesMigration = Migration(version: 502, name: "payment anomalies", portableSQL: """
        CREATE TABLE payment_anomalies (
            id          INTEGER PRIMARY KEY,
            payment_id  TEXT NOT NULL,
            order_id    TEXT NOT NULL,
            kind        TEXT NOT NULL,
            amount      INTEGER NOT NULL,
            currency    TEXT NOT NULL,
            reference   TEXT,
            event_id    TEXT NOT NULL,
            reason      TEXT NOT NULL,
            refundable  INTEGER NOT NULL,
            refundable_currency TEXT NOT NULL,
            recorded_at INTEGER NOT NULL,
            applied_at  INTEGER
        ) STRICT;
        \(anomalyIndexes)
        """)

    private static let anomalyIndexes = """
        CREATE INDEX payment_anomalies_held ON payment_anomalies(payment_id, id) WHERE applied_at IS NULL;
        CREATE UNIQUE INDEX payment_anomalies_reference ON payment_anomalies(payment_id, kind, reference)
            WHERE reference IS NOT NULL;
        """

    private static let anomalyColumns = """
        id, payment_id, order_id, kind, amount, currency, reference, event_id, reason, refundable,
        refundable_currency, recorded_at, applied_at
        """

    static func insertAnomaly(_ handle: any StorageHandle, _ movement: MoneyMovement, eventID: String,
                              of payment: Payment, reason: PaymentAnomaly.Reason, at now: Int64) throws {
        try handle.enqueue("""
            INSERT INTO payment_anomalies(payment_id, order_id, kind, amount, currency, reference, event_id, reason,
                                          refundable, refundable_currency, recorded_at)
            VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, payment.id.description, payment.orderID.description, movement.kind.rawValue,
            movement.amount.amount, movement.amount.currency.code, movement.reference, eventID, reason.rawValue,
            payment.held, payment.amount.currency.code, now)
    }

    /// Whether this payment has an anomaly of `kind` under `reference`.
    static func hasAnomaly(_ handle: any StorageHandle, payment: PaymentID, kind: LedgerKind,
                           reference: String) throws -> Bool {
        try handle.queryOne("""
            SELECT 1 AS seen FROM payment_anomalies WHERE payment_id = ? AND kind = ? AND reference = ?
            """, payment.description, kind.rawValue, reference) != nil
    }

    /// The payment's held anomalies beyond what was paid, oldest first.
    static func heldAnomalies(_ handle: any StorageHandle, payment: PaymentID) throws -> [PaymentAnomaly] {
        try handle.query("""
            SELECT \(anomalyColumns) FROM payment_anomalies
            WHERE payment_id = ? AND applied_at IS NULL AND reason = ? ORDER BY id
            """, payment.description, PaymentAnomaly.Reason.exceedsPaid.rawValue).map(decodeAnomaly)
    }

    static func markApplied(_ handle: any StorageHandle, anomaly id: Int64, at now: Int64) throws {
        try handle.enqueue("UPDATE payment_anomalies SET applied_at = ? WHERE id = ?", now, id)
    }

    /// Up to `limit` anomalies after `cursor` (an id), oldest first;
    /// `held` keeps only those not applied.
    static func anomalies(_ handle: any StorageHandle, after cursor: Int64?, held: Bool,
                          limit: Int) throws -> [PaymentAnomaly] {
        let filter = held ? " AND applied_at IS NULL" : ""
        return try handle.query("""
            SELECT \(anomalyColumns) FROM payment_anomalies WHERE id > ?\(filter) ORDER BY id LIMIT ?
            """, cursor ?? 0, limit).map(decodeAnomaly)
    }

    private static func decodeAnomaly(_ row: StorageRow) throws -> PaymentAnomaly {
        func field<T>(_ value: T?, _ name: String) throws -> T {
            guard let value else { throw PaymentDataError(description: "payment_anomalies.\(name) holds an unknown value") }
            return value
        }
        let currency = try Currency(try row.get("currency", as: String.self))
        let refundableCurrency = try Currency(try row.get("refundable_currency", as: String.self))
        let movement = MoneyMovement(
            kind: try field(LedgerKind(rawValue: try row.get("kind")), "kind"),
            amount: Money(amount: try row.get("amount"), currency: currency),
            method: .provider,
            reference: try row.get("reference", as: String?.self),
            eventID: try row.get("event_id", as: String.self),
            actor: .provider)
        return PaymentAnomaly(
            id: try row.get("id"),
            paymentID: try field(PaymentID(try row.get("payment_id", as: String.self)), "payment_id"),
            orderID: try field(OrderID(try row.get("order_id", as: String.self)), "order_id"),
            movement: movement,
            reason: try field(PaymentAnomaly.Reason(rawValue: try row.get("reason")), "reason"),
            refundable: Money(amount: try row.get("refundable"), currency: refundableCurrency),
            recordedAt: Timestamp(millisecondsSince1970: try row.get("recorded_at")),
            appliedAt: try row.get("applied_at", as: Int64?.self).map(Timestamp.init(millisecondsSince1970:)))
    }
}
