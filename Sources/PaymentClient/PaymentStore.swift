import Capabilities
import Domain
import FoundationEssentials

/// The payments client's SQL (migrations 500-599; the ledger's in
/// `PaymentStore+Ledger`), in the portable subset
/// both backends run; only the migration has a PostgreSQL text of its own. Every read is one probe
/// of an index: the primary key, the unique `order_id`, `payments_due`
/// (status, expires_at) for the expiry sweep and the partial `payments_open`
/// for start-up reconciliation; nothing scans the table. Write functions run
/// inside one storage transaction closure and may run again in a later
/// batch, so they are pure over the handle.
enum PaymentStore {
    static let migrations: [Migration] = [
        // `open` marks a payment whose change still has work in other
        // clients (its order moved, its stock returned) not known finished.
        // `payment_events` remembers every applied provider event by id: its
        // primary key is what makes a replayed or concurrently re-delivered
        // event change nothing, inserted in the payment change's transaction.
        Migration(version: 500, name: "payments", portableSQL: """
            CREATE TABLE payments (
                id          TEXT PRIMARY KEY,
                order_id    TEXT NOT NULL UNIQUE,
                user_id     TEXT NOT NULL,
                status      TEXT NOT NULL,
                amount      INTEGER NOT NULL,
                currency    TEXT NOT NULL,
                method      TEXT NOT NULL,
                reference   TEXT,
                expires_at  INTEGER NOT NULL,
                updated_at  INTEGER NOT NULL,
                open        INTEGER NOT NULL DEFAULT 0 CHECK (open IN (0, 1))
            ) STRICT;
            CREATE INDEX payments_due ON payments(status, expires_at);
            CREATE INDEX payments_open ON payments(updated_at) WHERE open = 1;
            CREATE TABLE payment_events (
                id          TEXT PRIMARY KEY,
                payment_id  TEXT NOT NULL,
                type        TEXT NOT NULL,
                received_at INTEGER NOT NULL
            ) STRICT;
            """),
        // The ledger: every money movement a row, never updated or deleted,
        // numbered by the database in the order recorded (one payment's rows
        // are written under its row lock, so its numbers are its order).
        // `paid`, `refunded` and `owed` on the payment are its sums (and the
        // refund owed), written in the same transaction as each row, so a
        // read of a payment needs no sum and the refunds owed are a partial
        // index. The unique (payment, kind, reference) is what records a
        // second event for the same refund, or a retried admin request, once.
        // Payments paid or refunded before the ledger get the rows that
        // say so, by the system.
        Migration(version: 501, name: "payment ledger", portableSQL: """
            ALTER TABLE payments ADD COLUMN paid INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE payments ADD COLUMN refunded INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE payments ADD COLUMN owed INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE payments ADD COLUMN fulfilled INTEGER NOT NULL DEFAULT 0 CHECK (fulfilled IN (0, 1));
            CREATE TABLE payment_ledger (
                id           INTEGER PRIMARY KEY,
                payment_id   TEXT NOT NULL,
                order_id     TEXT NOT NULL,
                kind         TEXT NOT NULL,
                amount       INTEGER NOT NULL CHECK (amount > 0),
                currency     TEXT NOT NULL,
                method       TEXT NOT NULL,
                reference    TEXT,
                event_id     TEXT,
                actor        TEXT NOT NULL,
                actor_id     TEXT,
                recorded_at  INTEGER NOT NULL,
                exceeds_paid INTEGER NOT NULL CHECK (exceeds_paid IN (0, 1))
            ) STRICT;
            \(ledgerIndexesAndBackfill)
            """),
        anomaliesMigration,
    ]

    /// The same text on both backends.
    private static let ledgerIndexesAndBackfill = """
        CREATE INDEX payment_ledger_by_payment ON payment_ledger(payment_id, id);
        CREATE INDEX payment_ledger_by_time ON payment_ledger(recorded_at, id);
        CREATE UNIQUE INDEX payment_ledger_reference ON payment_ledger(payment_id, kind, reference)
            WHERE reference IS NOT NULL;
        CREATE INDEX payments_owed ON payments(id) WHERE owed > 0;
        UPDATE payments SET paid = amount WHERE status IN ('succeeded', 'refund_pending', 'refunded');
        UPDATE payments SET refunded = amount WHERE status = 'refunded';
        UPDATE payments SET owed = amount WHERE status = 'refund_pending';
        INSERT INTO payment_ledger(payment_id, order_id, kind, amount, currency, method, reference, event_id,
                                   actor, actor_id, recorded_at, exceeds_paid)
            SELECT id, order_id, CASE WHEN method = 'manual' THEN 'manual_payment' ELSE 'charge' END,
                   amount, currency, method, reference, NULL, 'system', NULL, updated_at, 0
            FROM payments WHERE paid > 0 ORDER BY updated_at;
        INSERT INTO payment_ledger(payment_id, order_id, kind, amount, currency, method, reference, event_id,
                                   actor, actor_id, recorded_at, exceeds_paid)
            SELECT id, order_id, 'refund', amount, currency, 'provider', NULL, NULL,
                   'system', NULL, updated_at, 0
            FROM payments WHERE refunded > 0 ORDER BY updated_at;
        """

    static let columns = """
        id, order_id, user_id, status, amount, currency, method, reference, expires_at, paid, refunded, fulfilled
        """

    /// `locked`: read to be changed in this write transaction (the row is
    /// locked until it commits: `lockingRead`), so a change another replica
    /// commits meanwhile is waited for and read, never overwritten.
    static func payment(_ handle: any StorageHandle, id: PaymentID, locked: Bool = false) throws -> Payment? {
        try handle.queryOne("SELECT \(columns) FROM payments WHERE id = ?" + (locked ? handle.lockingRead : ""),
                            id.description).map(decode)
    }

    static func payment(_ handle: any StorageHandle, order: OrderID, locked: Bool = false) throws -> Payment? {
        try handle.queryOne("SELECT \(columns) FROM payments WHERE order_id = ?" + (locked ? handle.lockingRead : ""),
                            order.description).map(decode)
    }

    /// Unpaid payments whose deadline is at or before `now`, oldest first
    /// (a range of `payments_due`).
    static func due(_ handle: any StorageHandle, now: Int64, limit: Int) throws -> [Payment] {
        try handle.query("""
            SELECT \(columns) FROM payments WHERE status = 'requires_payment' AND expires_at <= ?
            ORDER BY expires_at LIMIT ?
            """ + handle.lockingRead, now, limit).map(decode)
    }

    /// The earliest deadline of an unpaid payment (one probe of `payments_due`).
    static func nextDeadline(_ handle: any StorageHandle) throws -> Int64? {
        try handle.queryOne("""
            SELECT expires_at FROM payments WHERE status = 'requires_payment' ORDER BY expires_at LIMIT 1
            """).map { try $0.get("expires_at") }
    }

    static func open(_ handle: any StorageHandle, changedBy: Int64, limit: Int) throws -> [Payment] {
        try handle.query("""
            SELECT \(columns) FROM payments WHERE open = 1 AND updated_at <= ? ORDER BY updated_at LIMIT ?
            """, changedBy, limit).map(decode)
    }

    static func hasEvent(_ handle: any StorageHandle, id: String) throws -> Bool {
        try handle.queryOne("SELECT 1 AS seen FROM payment_events WHERE id = ?", id) != nil
    }

    static func insertEvent(_ handle: any StorageHandle, _ event: PaymentEvent, at now: Int64) throws {
        try handle.enqueue("INSERT INTO payment_events(id, payment_id, type, received_at) VALUES(?, ?, ?, ?)",
                           event.id, event.paymentID.description, event.type.rawValue, now)
    }

    /// A new payment, unless its order has one already (false then, and
    /// nothing is written).
    static func insert(_ handle: any StorageHandle, _ payment: Payment, at now: Int64) throws -> Bool {
        try !handle.query("""
            INSERT INTO payments(id, order_id, user_id, status, amount, currency, method, reference, expires_at,
                                 updated_at, open)
            VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)
            ON CONFLICT DO NOTHING RETURNING id
            """, payment.id.description, payment.orderID.description, payment.userID.description,
            payment.status.rawValue, payment.amount.amount, payment.amount.currency.code, payment.method.rawValue,
            payment.reference, payment.expiresAt.millisecondsSince1970, now).isEmpty
    }

    /// Stores a changed payment and marks it open: its order and stock are
    /// still to follow. Its sums change only with a ledger row
    /// (`insertEntry`) in the same transaction.
    static func update(_ handle: any StorageHandle, _ payment: Payment, at now: Int64) throws {
        try handle.enqueue("""
            UPDATE payments SET status = ?, method = ?, reference = ?, paid = ?, refunded = ?, owed = ?, fulfilled = ?,
                                updated_at = ?, open = 1
            WHERE id = ?
            """, payment.status.rawValue, payment.method.rawValue, payment.reference, payment.paid, payment.refunded,
            payment.refundOwed, payment.fulfilled ? 1 : 0, now, payment.id.description)
    }

    static func settle(_ handle: any StorageHandle, id: PaymentID, status: PaymentStatus) throws {
        try handle.enqueue("UPDATE payments SET open = 0 WHERE id = ? AND status = ?", id.description, status.rawValue)
    }

    static func decode(_ row: StorageRow) throws -> Payment {
        func field<T>(_ value: T?, _ name: String) throws -> T {
            guard let value else { throw PaymentDataError(description: "payments.\(name) holds an unknown value") }
            return value
        }
        let currency = try Currency(try row.get("currency", as: String.self))
        return Payment(
            id: try field(PaymentID(try row.get("id", as: String.self)), "id"),
            orderID: try field(OrderID(try row.get("order_id", as: String.self)), "order_id"),
            userID: try field(UserID(try row.get("user_id", as: String.self)), "user_id"),
            status: try field(PaymentStatus(rawValue: try row.get("status")), "status"),
            amount: Money(amount: try row.get("amount"), currency: currency),
            method: try field(PaymentMethod(rawValue: try row.get("method")), "method"),
            expiresAt: Timestamp(millisecondsSince1970: try row.get("expires_at")),
            reference: try row.get("reference", as: String?.self),
            paid: try row.get("paid"),
            refunded: try row.get("refunded"),
            fulfilled: try row.get("fulfilled", as: Int64.self) == 1)
    }
}
