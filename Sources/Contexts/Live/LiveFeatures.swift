import Axiom

/// The live features this process serves, in the order the composition
/// root lists them: given to every `LiveUpdatesContext` through
/// `AxiomOrchestrator.compose(LiveUpdatesContext.self, with:)`.
public struct LiveFeatures: Sendable {
    let types: [any LiveFeature.Type]

    public init(_ types: [any LiveFeature.Type]) {
        self.types = types
    }
}
