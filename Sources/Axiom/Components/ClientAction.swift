/// What a context asks a client to do (RFC-001 1.3's `Action`), carrying
/// the type of its answer: `users.send(.register(request))` is a `User`,
/// so the compiler checks what a context expects back from its client.
///
/// A client declares each of its actions as a type conforming here, and a
/// static factory in a `where Self ==` extension, so a call reads
/// `send(.name(…))` as the RFC's enum actions do.
public protocol ClientAction<Target>: Sendable {
    associatedtype Target: Client
    associatedtype Outcome: Sendable

    /// Performs the action in the client's isolation.
    func run(on client: isolated Target) async throws -> Outcome
}
