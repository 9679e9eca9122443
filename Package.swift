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
        .target(name: "HTTPServer", dependencies: ["CSystemShims"]),
        // Composition root: configuration, wiring, main.
        .executableTarget(name: "AxiomServer", dependencies: ["HTTPServer"]),

        // A raw-socket HTTP client shared by the test targets.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "TestSupport"]),
        .testTarget(name: "AxiomServerTests", dependencies: ["AxiomServer", "TestSupport"]),
    ]
)
