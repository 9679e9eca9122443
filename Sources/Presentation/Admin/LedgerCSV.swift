import Domain

/// `GET /admin/exports/ledger`: one record per money movement, amounts in
/// minor units.
enum LedgerCSV {
    static let header = CSV.header([
        "id", "recorded_at", "order_id", "payment_id", "kind", "amount", "currency", "method", "reference",
        "event_id", "actor", "actor_id", "exceeds_paid",
    ])

    static func record(_ entry: LedgerEntry) -> String {
        let movement = entry.movement
        return CSV.record([
            .integer(entry.id), .text(entry.recordedAt.rfc3339), .text(entry.orderID.description),
            .text(entry.paymentID.description), .text(movement.kind.rawValue), .integer(movement.amount.amount),
            .text(movement.amount.currency.code), .text(movement.method.rawValue), .text(movement.reference),
            .text(movement.eventID), .text(movement.actor.kind), .text(movement.actor.userID?.description),
            .text(entry.exceedsPaid ? "true" : "false"),
        ])
    }
}
