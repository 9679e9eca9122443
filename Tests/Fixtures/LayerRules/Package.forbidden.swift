// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "layer-rules-fixture",
    dependencies: [],
    targets: [
        .target(name: "Sharding"),
        .target(name: "Axiom", dependencies: ["Sharding"]),
        .target(name: "Domain"),
        .target(name: "Capabilities", dependencies: ["Axiom", "Domain"]),
        .target(name: "AlphaClient", dependencies: ["Axiom", "Domain", "Capabilities"]),
        .target(name: "BetaClient", dependencies: ["Axiom", "Domain", "Capabilities"]),
        .target(name: "Contexts", dependencies: ["Axiom", "Domain", "AlphaClient", "BetaClient"]),
        .target(name: "Presentation", dependencies: ["Contexts"]),
        // Forbidden samples, each a leaf so that each fails on its own.
        .target(name: "GammaClient", dependencies: ["Axiom", "Domain", "Capabilities"]),
        .target(name: "CapabilitiesRogue", dependencies: ["Axiom", "Domain"]),
        .target(name: "ContextsRogue", dependencies: ["Axiom", "Domain", "AlphaClient"]),
    ]
)
