import Contexts
import Domain

public struct AlphaRoutes {
    public init() {}

    public func render(_ amount: Cents) -> String { "{\"cents\":\(amount.value)}" }

    public func handle(_ context: AlphaContext, _ amount: Cents) async throws -> String {
        render(try await context.send(amount))
    }
}
