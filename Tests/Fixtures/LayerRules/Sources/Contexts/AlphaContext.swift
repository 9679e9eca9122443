import AlphaClient
import Axiom
import Domain

public actor AlphaContext: Context {
    public nonisolated let identity: ContextIdentity
    private let alpha: ClientHandle<AlphaClient>

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        alpha = try creation.client(AlphaClient.self)
    }

    public func send(_ amount: Cents) async throws -> Cents { try await alpha.call { try await $0.double(amount) } }
}
