/// How a context holds its singleton client, and the one way it calls it:
/// `try await carts.call { try await $0.setQuantity(…) }` for a write and
/// `try await carts.call { try await $0.cart(for: user) }` for a read alike,
/// and `catalog.call { $0.currency }` for a synchronous one. Each call
/// is counted, timed and its error recorded in the client's
/// ``ClientMetrics`` (RFC-001 section 16). Whether a call hops onto the
/// client's actor is the client's declaration, not the caller's: writes
/// are isolated, reads `nonisolated`.
public struct ClientHandle<C: Client>: Sendable {
    @usableFromInline let client: C
    @usableFromInline let metrics: ClientMetrics

    init(client: C, metrics: ClientMetrics) {
        self.client = client
        self.metrics = metrics
    }

    @inlinable
    public nonisolated(nonsending) func call<R>(_ body: (C) async throws -> R) async throws -> R {
        let start = ContinuousClock.now
        do {
            let outcome = try await body(client)
            metrics.record(duration: ContinuousClock.now - start, failed: false)
            return outcome
        } catch {
            metrics.record(duration: ContinuousClock.now - start, failed: true)
            throw error
        }
    }
}

extension ClientHandle {
    /// `call` for a synchronous read (a setting, a counter): no suspension.
    @inlinable
    public func call<R>(_ body: (C) throws -> R) rethrows -> R {
        let start = ContinuousClock.now
        do {
            let outcome = try body(client)
            metrics.record(duration: ContinuousClock.now - start, failed: false)
            return outcome
        } catch {
            metrics.record(duration: ContinuousClock.now - start, failed: true)
            throw error
        }
    }
}

extension ClientHandle where C: PublishingClient {
    /// The client's updates, for an observer (a live feature): the
    /// broadcaster its subscriptions are made on.
    public var updates: StateBroadcaster<C.StateUpdate> { client.stateBroadcaster }
}
