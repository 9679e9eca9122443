import Capabilities
import Domain

/// Provider refunds and chargebacks the ledger cannot take as they come
/// (`PaymentAnomaly`): kept, listed for admins, and those beyond what was
/// paid applied once money coming in covers them. All of it runs in the
/// caller's write transaction with the payment's row locked.
extension PaymentClient {
    /// Up to `limit` anomalies after `cursor`, oldest first; `held` keeps
    /// only those not applied.
    public nonisolated func anomalies(after cursor: Int64?, held: Bool, limit: Int) async throws -> [PaymentAnomaly] {
        try await storage.storedRead { try PaymentStore.anomalies($0, after: cursor, held: held, limit: limit) }
    }

    /// Keeps `movement`, which `refusal` kept from the ledger; a second
    /// event for a refund kept already (by the provider's reference) is a
    /// duplicate. Anything but a refund beyond what was paid, in another
    /// currency or of no positive amount is rethrown: it is not the provider's data at fault.
    static func keepAnomaly(_ handle: any StorageHandle, _ movement: MoneyMovement, of event: PaymentEvent,
                            on stored: Payment, refused refusal: PaymentError,
                            at now: Int64) throws -> PaymentReceipt.Effect {
        let reason: PaymentAnomaly.Reason
        switch refusal {
        case .refundExceedsPaid: reason = .exceedsPaid
        case .amountMismatch(let expected, let got):
            reason = got.currency == expected.currency ? .invalidAmount : .currencyMismatch
        default: throw refusal
        }
        if let reference = movement.reference,
           try PaymentStore.hasAnomaly(handle, payment: stored.id, kind: movement.kind, reference: reference) {
            return .duplicate
        }
        try PaymentStore.insertAnomaly(handle, movement, eventID: event.id, of: stored, reason: reason, at: now)
        return .anomaly
    }

    /// `payment` after each of its held anomalies that what it has been
    /// paid now covers, oldest first, each written to the ledger and
    /// marked applied; one still beyond stays held.
    static func applyHeldAnomalies(_ handle: any StorageHandle, on payment: Payment,
                                   at now: Int64) throws -> Payment {
        var next = payment
        for anomaly in try PaymentStore.heldAnomalies(handle, payment: payment.id) {
            let movement = anomaly.movement
            if let reference = movement.reference,
               try PaymentStore.hasMovement(handle, payment: payment.id, kind: movement.kind, reference: reference) {
                try PaymentStore.markApplied(handle, anomaly: anomaly.id, at: now)
                continue
            }
            guard let recorded = try? next.recording(movement) else { continue }
            try PaymentStore.insertEntry(handle, movement, of: next, at: now, exceedsPaid: false)
            try PaymentStore.markApplied(handle, anomaly: anomaly.id, at: now)
            next = recorded
        }
        return next
    }
}
