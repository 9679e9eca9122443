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
        .target(name: "CSystemShims"),
        // gzip content coding (RFC 9110 8.4.1.3) through the system zlib.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "HTTPServer", dependencies: ["CSystemShims", "CZlib"]),
        // Composition root: configuration, wiring, main.
        .executableTarget(name: "AxiomServer", dependencies: [
            "HTTPServer", "Axiom", "Domain", "Capabilities", "Contexts", "Presentation",
            "CatalogClient", "PricingClient", "UserClient", "CartClient", "OrderClient",
        ]),
        // HTTP resources: each route group is bound to one context type and
        // only turns its state into JSON (no domain logic here).
        .target(name: "Presentation", dependencies: ["HTTPServer", "Axiom", "Domain", "Contexts"]),
        .testTarget(name: "PresentationTests", dependencies: ["Presentation", "HTTPServer", "Domain"]),
        // Request-body JSON fuzzing (scripts/fuzz.sh --json), built like
        // HTTPParserFuzzer; reaches Presentation only through its
        // @_spi(Fuzzing) JSONFuzzing.
        .executableTarget(name: "JSONBodyFuzzer", dependencies: ["Presentation", "FuzzReplay"]),
        // Parser fuzzing (scripts/fuzz.sh): a libFuzzer target, built with
        // `swift build -c release --sanitize=fuzzer --product HTTPParserFuzzer`.
        // A normal build makes it a replayer of crash files. Reaches the
        // parser only through HTTPServer's @_spi(Fuzzing) ParserFuzzing.
        .executableTarget(name: "HTTPParserFuzzer", dependencies: ["HTTPServer", "FuzzReplay"]),
        // The fuzz targets' replay of crash files in a normal build.
        .target(name: "FuzzReplay"),

        // --- Capabilities (storage + security) -----------------------------
        // System C libraries, linked through module maps (no Swift packages).
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CSodium", providers: [.apt(["libsodium-dev"])]),
        // External-system access: SQLite storage, password hashing, randomness,
        // the clock. Axiom for the Capability protocol (issue 3).
        .target(name: "Capabilities", dependencies: ["CSQLite", "CSodium", "Axiom", "Domain"]),
        .testTarget(name: "CapabilitiesTests", dependencies: ["Capabilities", "Axiom", "AxiomTestSupport"]),
        // --- end Capabilities ----------------------------------------------

        // --- CatalogClient (issue 4) ---------------------------------------
        // The product catalogue (owns CatalogState; migrations 200-299) and
        // the stateless cart pricing. Clients: Axiom, Domain, Capabilities only.
        .target(name: "CatalogClient", dependencies: ["Axiom", "Domain", "Capabilities"]),
        .target(name: "PricingClient", dependencies: ["Axiom", "Domain"]),
        .testTarget(name: "CatalogClientTests", dependencies: ["CatalogClient", "Axiom", "Domain", "Capabilities", "AxiomTestSupport"]),
        .testTarget(name: "PricingClientTests", dependencies: ["PricingClient", "Axiom", "Domain", "AxiomTestSupport"]),
        // --- end CatalogClient ---------------------------------------------

        // --- UserClient (issue 4) ---
        .target(name: "UserClient", dependencies: ["Axiom", "Domain", "Capabilities"]),
        .testTarget(name: "UserClientTests", dependencies: ["UserClient", "Axiom", "Domain", "Capabilities", "AxiomTestSupport"]),
        // --- end UserClient ---

        // --- CartClient (issue 4) ---
        .target(name: "CartClient", dependencies: ["Axiom", "Domain", "Capabilities"]),
        .testTarget(name: "CartClientTests", dependencies: ["CartClient", "Axiom", "Domain", "Capabilities"]),
        // --- end CartClient ---

        // --- OrderClient (issue 4) ---
        .target(name: "OrderClient", dependencies: ["Axiom", "Domain", "Capabilities"]),
        .testTarget(name: "OrderClientTests", dependencies: ["OrderClient", "Axiom", "Domain", "Capabilities", "AxiomTestSupport"]),
        // --- end OrderClient ---

        // A raw-socket HTTP client shared by the test targets.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .target(name: "AxiomTestSupport", dependencies: ["Axiom"], path: "Tests/AxiomTestSupport"),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "TestSupport", "CZlib"]),
        .testTarget(name: "AxiomServerTests", dependencies: ["AxiomServer", "TestSupport"]),

        // --- Axiom runtime and layers (issue 3) ----------------------------
        // The layer rules (RFC-001 section 2) are checked by
        // Tests/ArchitectureTests: a client may import Axiom, Domain and
        // Capabilities; a context Axiom, Domain and clients (never
        // Capabilities); a capability Axiom, Domain and C libraries;
        // presentation Contexts. See docs/constraints.md.
        // Protocols and runtime: orchestrator, registries, context DAG,
        // observer fan-out, sessions, component analysis, metrics.
        .target(name: "Axiom"),
        // Value types of the domains. No dependencies.
        .target(name: "Domain"),
        // Feature coordination, one instance per session. Never Capabilities.
        .target(name: "Contexts", dependencies: ["Axiom", "Domain", "CatalogClient", "PricingClient", "UserClient", "CartClient", "OrderClient"]),
        // Run by hand: swift run -c release AxiomBenchmarks
        .executableTarget(name: "AxiomBenchmarks", dependencies: ["Axiom"]),
        .testTarget(name: "AxiomTests", dependencies: ["Axiom", "AxiomTestSupport"]),
        .testTarget(name: "ContextsTests", dependencies: ["Contexts", "Axiom", "Domain", "AxiomTestSupport"]),
        .testTarget(name: "DomainTests", dependencies: ["Domain"]),
        // Build-time rule check (RFC-001 section 6.2) over this package and
        // the fixture package in Tests/Fixtures (not part of this package).
        .testTarget(name: "ArchitectureTests"),
        // --- end Axiom -----------------------------------------------------
    ]
)
