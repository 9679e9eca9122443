// swift-tools-version:6.0
// The target graph is the architecture: each layer is its own target and may
// import only what it declares here (built with
// --explicit-target-dependency-import-check error).
import PackageDescription

let package = Package(
    name: "axiom-server",
    products: [
        .executable(name: "axiom-server", targets: ["AxiomServer"]),
    ],
    dependencies: [],
    targets: [
        // Protocol level: HTTP/1.1 over POSIX sockets and Dispatch. Knows no domain.
        .target(name: "HTTPServer"),
        // Composition root: configuration, wiring, main.
        .executableTarget(name: "AxiomServer", dependencies: ["HTTPServer"]),

        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer"]),
        .testTarget(name: "AxiomServerTests", dependencies: ["AxiomServer"]),

        // MARK: - Axiom runtime and layers (issue 3)
        // The layer rules (RFC-001 section 2) are checked by
        // Tests/ArchitectureTests: a client may import Axiom, Domain and
        // Capabilities; a context Axiom, Domain and clients (never
        // Capabilities); a capability Axiom and Domain; presentation Contexts.
        // Protocols and runtime: orchestrator, registries, context DAG,
        // observer fan-out, sessions, component analysis, metrics.
        .target(name: "Axiom"),
        // Value types of the domains. No dependencies.
        .target(name: "Domain"),
        // System access (clock, randomness; storage in Capabilities/Storage).
        .target(name: "Capabilities", dependencies: ["Axiom", "Domain"]),
        // Feature coordination, one instance per session. Never Capabilities.
        .target(name: "Contexts", dependencies: ["Axiom", "Domain"]),
        // Run by hand: swift run -c release AxiomBenchmarks
        .executableTarget(name: "AxiomBenchmarks", dependencies: ["Axiom"]),

        .testTarget(name: "AxiomTests", dependencies: ["Axiom"]),
        .testTarget(name: "CapabilitiesTests", dependencies: ["Capabilities", "Axiom"]),
        .testTarget(name: "ContextsTests", dependencies: ["Contexts", "Axiom", "Domain"]),
        // Build-time rule check (RFC-001 section 6.2) over this package and
        // the fixture package in Tests/Fixtures (not part of this package).
        .testTarget(name: "ArchitectureTests"),
    ]
)
