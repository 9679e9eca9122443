// swift-tools-version:6.0
// The target graph is the architecture: each layer is its own target and may
// import only what it declares here (built with
// --explicit-target-dependency-import-check error). Read top to bottom, the
// targets follow the one-way flow up from the system: system libraries →
// HTTP → Axiom and Domain → Capabilities → Clients → Contexts → Presentation
// → composition root; then tooling and tests. The layer rules are checked by
// Tests/ArchitectureTests (see docs/constraints.md).
import PackageDescription

let package = Package(
    name: "axiom-server",
    products: [
        .executable(name: "axiom-server", targets: ["AxiomServer"]),
    ],
    dependencies: [],
    targets: [
        // --- System libraries (module maps; no Swift packages) -------------
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CSodium", providers: [.apt(["libsodium-dev"])]),
        .target(name: "CSystemShims"),
        // One memory mapping of a database file for all of the process's
        // SQLite connections (a VFS over the default one).
        .target(name: "CSQLiteSharedMap", linkerSettings: [.linkedLibrary("sqlite3")]),
        // gzip content coding (RFC 9110 8.4.1.3) through the system zlib.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // PostgreSQL's C client, for the storage capability's second backend.
        .systemLibrary(name: "CLibPQ", providers: [.apt(["libpq-dev"])]),
        // OpenSSL 3's libssl: TLS for the outbound SMTP and HTTPS clients.
        .systemLibrary(name: "CSSL", providers: [.apt(["libssl-dev"])]),

        // --- The one sharded-lock type (LockShards), below both HTTPServer's
        // rate limits and Axiom's runtime and working sets. No dependencies.
        .target(name: "Sharding"),

        // --- Formats: JSON written and read, the proleptic Gregorian
        // calendar. No dependencies; below HTTP and the domain, which both
        // write JSON and dates, so each is written once.
        .target(name: "Formats"),

        // --- HTTP: HTTP/1.1 over POSIX sockets and Dispatch. Knows no domain.
        .target(name: "HTTPServer", dependencies: ["CSystemShims", "CZlib", "Sharding", "Formats"]),

        // --- Axiom runtime and the domain's values --------------------------
        // Protocols and runtime: orchestrator, registries, context DAG,
        // observer fan-out, sessions, component analysis, metrics.
        .target(name: "Axiom", dependencies: ["Sharding"]),
        // Value types of the domains, and their JSON. Formats only.
        .target(name: "Domain", dependencies: ["Formats"]),


        // --- Capabilities: storage (SQLite, PostgreSQL), password hashing,
        // randomness, the clock, TCP/TLS connections, SMTP mail and outbound
        // HTTP. Axiom for the Capability protocol; HTTPServer for its
        // response parser, which the outbound HTTP client reads answers with.
        .target(name: "Capabilities", dependencies: ["CSQLite", "CSQLiteSharedMap", "CLibPQ", "CSodium", "CSSL", "Axiom",
                                                     "Domain", "HTTPServer"]),

        // --- Clients: one target each, so a client cannot import another.
        // Axiom, Domain and Capabilities only.
        .target(name: "UserClient", dependencies: ["Axiom", "Domain", "Capabilities"]),
        .target(name: "CatalogClient", dependencies: ["Axiom", "Domain", "Capabilities"]),
        .target(name: "PricingClient", dependencies: ["Axiom", "Domain"]),
        .target(name: "CartClient", dependencies: ["Axiom", "Domain", "Capabilities"]),
        .target(name: "OrderClient", dependencies: ["Axiom", "Domain", "Capabilities"]),
        // Payments (migrations 500-599); provider signatures are checked
        // through the MessageAuthenticator capability.
        .target(name: "PaymentClient", dependencies: ["Axiom", "Domain", "Capabilities"]),
        // Saved products (migrations 600-699).
        .target(name: "WishlistClient", dependencies: ["Axiom", "Domain", "Capabilities"]),
        // Mail: templates rendered and sent through the SMTP capability.
        .target(name: "MailClient", dependencies: ["Axiom", "Domain", "Capabilities"]),
        // The job queue's claims, outcomes and admin actions (stateless; the
        // `jobs` table is Capabilities' bookkeeping, like the outbox).
        .target(name: "JobClient", dependencies: ["Axiom", "Domain", "Capabilities"]),
        // Outbound webhooks (migrations 700-799): endpoints, events, deliveries
        // and their attempts, sent through the HTTPS capability and signed
        // through the MessageAuthenticator capability.
        .target(name: "WebhookClient", dependencies: ["Axiom", "Domain", "Capabilities"]),

        // --- Contexts: a graph per session and the process-wide ones. Clients,
        // never Capabilities.
        .target(name: "Contexts", dependencies: ["Axiom", "Domain", "UserClient", "CatalogClient", "PricingClient",
                                                 "CartClient", "OrderClient", "PaymentClient", "WishlistClient", "MailClient",
                                                 "JobClient", "WebhookClient"]),

        // --- Presentation: route groups, each bound to one context type; only
        // turns its answers into JSON (no domain logic here).
        .target(name: "Presentation", dependencies: ["HTTPServer", "Axiom", "Domain", "Contexts", "Formats"]),

        // --- Composition root: configuration, wiring, main. Sees every layer.
        .executableTarget(name: "AxiomServer", dependencies: [
            "Sharding", "HTTPServer", "Axiom", "Domain", "Capabilities", "UserClient", "CatalogClient", "PricingClient",
            "CartClient", "OrderClient", "PaymentClient", "WishlistClient", "MailClient", "JobClient", "WebhookClient",
            "Contexts", "Presentation",
        ]),

        // --- Tooling ----------------------------------------------------------
        // Parser fuzzing (scripts/fuzz.sh): a libFuzzer target, built with
        // `swift build -c release --sanitize=fuzzer --product HTTPParserFuzzer`.
        // A normal build makes it a replayer of crash files. Reaches the
        // parser only through HTTPServer's @_spi(Fuzzing) ParserFuzzing.
        .executableTarget(name: "HTTPParserFuzzer", dependencies: ["HTTPServer", "FuzzReplay"]),
        // Request-body JSON fuzzing (scripts/fuzz.sh --json), built like
        // HTTPParserFuzzer; reaches Presentation only through its
        // @_spi(Fuzzing) JSONFuzzing.
        .executableTarget(name: "JSONBodyFuzzer", dependencies: ["Presentation", "FuzzReplay"]),
        // The fuzz targets' replay of crash files in a normal build.
        .target(name: "FuzzReplay"),
        // Run by hand: swift run -c release AxiomBenchmarks
        .executableTarget(name: "AxiomBenchmarks", dependencies: ["Axiom"]),
        // Durable writes/s, 1 vs many writers, SQLite vs PostgreSQL: swift run StorageBenchmarks
        .executableTarget(name: "StorageBenchmarks", dependencies: ["Capabilities"]),
        // Jobs enqueued and completed/s, 1 vs 3 workers, SQLite vs PostgreSQL: swift run -c release JobBenchmarks
        .executableTarget(name: "JobBenchmarks", dependencies: ["Capabilities", "Domain"]),

        // --- Tests: one target per source target, in the same order --------
        // Shared by the test targets: a raw-socket HTTP client, Python programs
        // and servers run beside a test (PythonTool, PythonServer).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // Orchestrators, the client harness (ClientRun), a manual clock,
        // temp directories, stream helpers.
        .target(name: "AxiomTestSupport", dependencies: ["Axiom", "Domain", "Capabilities"], path: "Tests/AxiomTestSupport"),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "TestSupport", "CZlib"]),
        .testTarget(name: "AxiomTests", dependencies: ["Axiom", "AxiomTestSupport"]),
        .testTarget(name: "DomainTests", dependencies: ["Domain", "TestSupport"]),
        .testTarget(name: "CapabilitiesTests", dependencies: ["Capabilities", "Axiom", "AxiomTestSupport", "TestSupport"]),
        .testTarget(name: "UserClientTests", dependencies: ["UserClient", "Axiom", "Domain", "Capabilities", "AxiomTestSupport"]),
        .testTarget(name: "CatalogClientTests", dependencies: ["CatalogClient", "Axiom", "Domain", "Capabilities", "AxiomTestSupport"]),
        .testTarget(name: "PricingClientTests", dependencies: ["PricingClient", "Axiom", "Domain", "AxiomTestSupport"]),
        .testTarget(name: "CartClientTests", dependencies: ["CartClient", "Axiom", "Domain", "Capabilities", "AxiomTestSupport"]),
        .testTarget(name: "OrderClientTests", dependencies: ["OrderClient", "Axiom", "Domain", "Capabilities", "AxiomTestSupport", "TestSupport"]),
        .testTarget(name: "PaymentClientTests", dependencies: ["PaymentClient", "Axiom", "Domain", "Capabilities", "AxiomTestSupport"]),
        .testTarget(name: "MailClientTests", dependencies: ["MailClient", "Domain"]),
        // Over a temp SQLite file (or a PostgreSQL schema), sending to a
        // real HTTPS receiver.
        .testTarget(name: "WebhookClientTests", dependencies: ["WebhookClient", "Axiom", "Domain", "Capabilities",
                                                               "AxiomTestSupport", "TestSupport"]),
        // Contexts with real clients over a temp SQLite file, no HTTP.
        .testTarget(name: "ContextsTests", dependencies: ["Contexts", "Axiom", "Domain", "Capabilities", "UserClient",
                                                          "CatalogClient", "PricingClient", "CartClient", "OrderClient",
                                                          "PaymentClient", "JobClient", "MailClient", "WebhookClient",
                                                          "AxiomTestSupport"]),
        .testTarget(name: "PresentationTests", dependencies: ["Presentation", "HTTPServer", "Domain", "Axiom", "Formats"]),
        // CLibPQ: a fresh PostgreSQL schema per server when the server
        // tests run on PostgreSQL (ServerDatabase).
        .testTarget(name: "AxiomServerTests", dependencies: ["AxiomServer", "TestSupport", "CLibPQ"]),
        // Build-time rule check (RFC-001 section 6.2) over this package and
        // the fixture package in Tests/Fixtures (not part of this package).
        .testTarget(name: "ArchitectureTests"),
    ]
)
