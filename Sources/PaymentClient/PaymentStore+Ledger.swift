import Capabilities
import Domain
import FoundationEssentials

/// The ledger's SQL (migration 501): rows are inserted, never updated or
/// deleted. Reads are ranges of `payment_ledger_by_payment` (one payment's
/// movements), `payment_ledger_by_time` (a date range, keyset paged) and
/// the partial `payments_owed` (payments that owe money back).
extension PaymentStore {
    private static let ledgerColumns = """
        id, payment_id, order_id, kind, amount, currency, method, reference, event_id, actor, actor_id, recorded_at,
        exceeds_paid
        """

    /// Appends `movement` of `payment`; the database numbers it.
    static func insertEntry(_ handle: any StorageHandle, _ movement: MoneyMovement, of payment: Payment, at now: Int64,
                            exceedsPaid: Bool) throws {
        try handle.enqueue("""
            INSERT INTO payment_ledger(payment_id, order_id, kind, amount, currency, method, reference, event_id, actor,
                                       actor_id, recorded_at, exceeds_paid)
            VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, payment.id.description, payment.orderID.description,
            movement.kind.rawValue, movement.amount.amount, movement.amount.currency.code, movement.method.rawValue,
            movement.reference, movement.eventID, movement.actor.kind, movement.actor.userID?.description,
            now, exceedsPaid ? 1 : 0)
    }

    /// Whether this payment has a movement of `kind` under `reference`
    /// (one probe of the unique `payment_ledger_reference`).
    static func hasMovement(_ handle: any StorageHandle, payment: PaymentID, kind: LedgerKind,
                            reference: String) throws -> Bool {
        try handle.queryOne("""
            SELECT 1 AS seen FROM payment_ledger WHERE payment_id = ? AND kind = ? AND reference = ?
            """, payment.description, kind.rawValue, reference) != nil
    }

    /// Every movement of one payment, oldest first.
    static func entries(_ handle: any StorageHandle, payment: PaymentID) throws -> [LedgerEntry] {
        try handle.query("SELECT \(ledgerColumns) FROM payment_ledger WHERE payment_id = ? ORDER BY id",
                         payment.description).map(decodeEntry)
    }

    /// Up to `limit` movements recorded in `[from, to)`, oldest first, after
    /// `position` (the recorded_at and id of the last one of the previous page).
    static func entries(_ handle: any StorageHandle, from: Int64, to: Int64, after position: (Int64, Int64)?,
                        limit: Int) throws -> [LedgerEntry] {
        if let (recordedAt, id) = position {
            return try handle.query("""
                SELECT \(ledgerColumns) FROM payment_ledger
                WHERE recorded_at < ? AND (recorded_at > ? OR (recorded_at = ? AND id > ?)) AND recorded_at >= ?
                ORDER BY recorded_at, id LIMIT ?
                """, to, recordedAt, recordedAt, id, from, limit).map(decodeEntry)
        }
        return try handle.query("""
            SELECT \(ledgerColumns) FROM payment_ledger WHERE recorded_at >= ? AND recorded_at < ?
            ORDER BY recorded_at, id LIMIT ?
            """, from, to, limit).map(decodeEntry)
    }

    /// Up to `limit` payments that owe money back, by id, after `cursor`
    /// (a range of the partial `payments_owed`).
    static func owing(_ handle: any StorageHandle, after cursor: String?, limit: Int) throws -> [Payment] {
        try handle.query("""
            SELECT \(columns) FROM payments WHERE owed > 0 AND id > ? ORDER BY id LIMIT ?
            """, cursor ?? "", limit).map(decode)
    }

    private static func decodeEntry(_ row: StorageRow) throws -> LedgerEntry {
        func field<T>(_ value: T?, _ name: String) throws -> T {
            guard let value else { throw PaymentDataError(description: "payment_ledger.\(name) holds an unknown value") }
            return value
        }
        let actorID = try row.get("actor_id", as: String?.self)
        let actor = try field(LedgerActor(kind: try row.get("actor", as: String.self),
                                          userID: try actorID.map { try field(UserID($0), "actor_id") }), "actor")
        let movement = MoneyMovement(
            kind: try field(LedgerKind(rawValue: try row.get("kind")), "kind"),
            amount: Money(amount: try row.get("amount"), currency: try Currency(try row.get("currency", as: String.self))),
            method: try field(PaymentMethod(rawValue: try row.get("method")), "method"),
            reference: try row.get("reference", as: String?.self),
            eventID: try row.get("event_id", as: String?.self),
            actor: actor)
        return LedgerEntry(
            id: try row.get("id"),
            paymentID: try field(PaymentID(try row.get("payment_id", as: String.self)), "payment_id"),
            orderID: try field(OrderID(try row.get("order_id", as: String.self)), "order_id"),
            movement: movement,
            recordedAt: Timestamp(millisecondsSince1970: try row.get("recorded_at")),
            exceedsPaid: try row.get("exceeds_paid", as: Int64.self) == 1)
    }
}
