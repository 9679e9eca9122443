import Domain

/// `GET /admin/exports/ledger`: one record per money movement, amounts in
/// minor units.
enum LedgerCSV {
    static let header = CSV.record([
        "id", "recorded_at", "order_id", "payment_id", "kind", "amount", "currency", "method", "reference",
        "event_id", "actor", "actor_id", "exceeds_paid",
    ])

    static func record(_ entry: LedgerEntry) -> String {
        let movement = entry.movement
        return CSV.record([
            String(entry.id), entry.recordedAt.rfc3339, entry.orderID.description, entry.paymentID.description,
            movement.kind.rawValue, String(movement.amount.amount), movement.amount.currency.code,
            movement.method.rawValue, movement.reference, movement.eventID, movement.actor.kind,
            movement.actor.userID?.description, entry.exceedsPaid ? "true" : "false",
        ])
    }
}
