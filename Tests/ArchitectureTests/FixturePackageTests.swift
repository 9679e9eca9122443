import Foundation
import Testing

/// Proves both build-time mechanisms bite, on the fixture package in
/// Tests/Fixtures/LayerRules (see its README): the compiler flag refuses what
/// is outside a target's dependency closure; the rule checker refuses the
/// transitive breaches the flag lets through. Builds the fixture three times
/// in one scratch directory (one full debug build, two that stop early).
@Suite("Layer rules bite on the fixture package", .serialized)
struct FixturePackageTests {
    static let repository = LayerRuleTests.root
    static let fixture = repository.appendingPathComponent("Tests/Fixtures/LayerRules")

    /// A temporary directory holding the fixture plus this repository's real
    /// Axiom module (`package`) and the builds' TMPDIR (`tmp`); removed whole.
    struct Workspace {
        let root: URL
        var package: URL { root.appendingPathComponent("package") }
        var temporary: URL { root.appendingPathComponent("tmp") }

        func swift(_ arguments: [String]) async throws -> ShellResult {
            try await Shell.swift(arguments, in: package, temporaryDirectory: temporary)
        }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    static func assemble() throws -> Workspace {
        let files = FileManager.default
        let workspace = Workspace(root: files.temporaryDirectory
            .appendingPathComponent("axiom-layer-fixture-\(UUID().uuidString)"))
        try files.createDirectory(at: workspace.root, withIntermediateDirectories: true)
        try files.copyItem(at: fixture, to: workspace.package)
        for target in ["Sharding", "Axiom"] {
            try files.copyItem(at: repository.appendingPathComponent("Sources/\(target)"),
                               to: workspace.package.appendingPathComponent("Sources/\(target)"))
        }
        return workspace
    }

    static func useForbiddenManifest(_ directory: URL) throws {
        let manifest = directory.appendingPathComponent("Package.swift")
        try FileManager.default.removeItem(at: manifest)
        try FileManager.default.copyItem(at: directory.appendingPathComponent("Package.forbidden.swift"), to: manifest)
    }

    static func messages(_ result: LayerRules.Result) -> [String] {
        result.violations.map { "\($0.file):\($0.line)" }
    }

    @Test("rule checker: the valid layers pass; each transitive breach is refused with file and line")
    func ruleCheckerOnFixture() async throws {
        let workspace = try Self.assemble()
        defer { workspace.remove() }
        let directory = workspace.package

        let valid = try LayerRules.check(try await PackageGraph.load(directory))
        // Only the two breaches the compiler cannot see; every other file passes.
        #expect(Self.messages(valid) == ["Sources/Contexts/ReachesCapabilities.swift:1",
                                         "Sources/Presentation/ReachesClient.swift:1"])
        #expect(valid.violations.first?.message
                == "context target 'Contexts' imports 'Capabilities' (capability); a context may import client, domain, framework")
        #expect(valid.violations.last?.message
                == "presentation target 'Presentation' imports 'AlphaClient' (client); a presentation may import context, domain, format, framework, http")

        try Self.useForbiddenManifest(directory)
        let forbidden = try LayerRules.check(try await PackageGraph.load(directory))
        #expect(Self.messages(forbidden) == ["Sources/CapabilitiesRogue/ImportsAlphaClient.swift:1",
                                             "Sources/Contexts/ReachesCapabilities.swift:1",
                                             "Sources/GammaClient/ImportsAlphaClient.swift:1",
                                             "Sources/Presentation/ReachesClient.swift:1"])
        #expect(forbidden.violations.contains {
            $0.message == "client target 'GammaClient' imports 'AlphaClient' (client); a client may import capability, domain, framework"
        })
        #expect(forbidden.violations.contains {
            $0.message.hasPrefix("capability target 'CapabilitiesRogue' imports 'AlphaClient' (client)")
        })
    }

    @Test("rule checker: a declared dependency the layers forbid is refused in Package.swift")
    func declaredDependencyRefused() async throws {
        let workspace = try Self.assemble()
        defer { workspace.remove() }
        let directory = workspace.package
        let manifest = directory.appendingPathComponent("Package.swift")
        let text = try String(contentsOf: manifest, encoding: .utf8).replacingOccurrences(
            of: #".target(name: "Contexts", dependencies: ["Axiom", "Domain", "AlphaClient", "BetaClient"])"#,
            with: #".target(name: "Contexts", dependencies: ["Axiom", "Domain", "AlphaClient", "BetaClient", "Capabilities"])"#)
        try text.write(to: manifest, atomically: true, encoding: .utf8)
        let result = try LayerRules.check(try await PackageGraph.load(directory))
        #expect(result.violations.contains {
            $0.file == "Package.swift"
                && $0.message.hasPrefix("context target 'Contexts' declares a dependency on 'Capabilities' (capability)")
        })
    }

    @Test("compiler: the valid layers build; out-of-closure imports and a forged context do not")
    func compilerOnFixture() async throws {
        let workspace = try Self.assemble()
        defer { workspace.remove() }
        let directory = workspace.package
        let flag = ["--explicit-target-dependency-import-check", "error"]

        // 1. Valid layers (with the two transitive breaches): the flag lets them through.
        let valid = try await workspace.swift(["build"] + flag)
        #expect(valid.status == 0, "\(valid.output)")

        // 2. A client importing another client and a capability importing a
        //    client: refused by the flag, both named, before compiling.
        try Self.useForbiddenManifest(directory)
        let imports = try await workspace.swift(["build"] + flag)
        #expect(imports.status != 0)
        #expect(imports.output.contains(
            "error: Target GammaClient imports another target (AlphaClient) in the package without declaring it a dependency."),
            "\(imports.output)")
        #expect(imports.output.contains(
            "error: Target CapabilitiesRogue imports another target (AlphaClient) in the package without declaring it a dependency."),
            "\(imports.output)")

        // 3. A context made outside the orchestrator: its token cannot be
        //    made outside Axiom (2.9). Built alone so the import check of (2)
        //    does not stop the build before the compiler sees it.
        let forged = try await workspace.swift(["build", "--target", "ContextsRogue"])
        #expect(forged.status != 0)
        #expect(forged.output.contains(
            "MakesContextDirectly.swift:16:22: error: 'ContextCreation' initializer is inaccessible due to 'internal' protection level"),
            "\(forged.output)")
    }
}
