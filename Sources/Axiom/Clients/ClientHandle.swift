/// How a context holds its singleton client: actions sent through the
/// handle are counted, timed and their errors recorded in the client's
/// ``ClientMetrics`` (RFC-001 section 16); reads call the client's query
/// functions (`handle.client.cart(for:)`).
public struct ClientHandle<C: Client>: Sendable {
    /// The singleton instance, for its query functions.
    public let client: C
    let metrics: ClientMetrics

    public func send<A: ClientAction>(_ action: A) async throws -> A.Outcome where A.Target == C {
        let start = ContinuousClock.now
        do {
            let outcome = try await client.send(action)
            metrics.record(duration: ContinuousClock.now - start, failed: false)
            return outcome
        } catch {
            metrics.record(duration: ContinuousClock.now - start, failed: true)
            throw error
        }
    }
}

extension ClientHandle where C: StatefulClient {
    /// The client's current state snapshot.
    public var state: C.State {
        get async { await client.state }
    }

    /// A new observer stream of the client's updates.
    public func updates() -> AsyncStream<C.StateUpdate> {
        client.stateUpdates
    }
}
