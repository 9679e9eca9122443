import Foundation

/// The layer rules of RFC-001 section 2 as a build-time check (its section
/// 6.2): what each layer's target may declare as a dependency and import.
///
/// `--explicit-target-dependency-import-check error` refuses only imports of
/// targets outside the importer's dependency closure; an import of a target
/// reachable transitively (a context importing Capabilities through a
/// client, a handler importing a client through Contexts) builds. This check
/// refuses those too, naming file and line.
enum LayerRules {
    enum Layer: String, CaseIterable {
        case framework, domain, capability, client, context, presentation, http, systemLibrary
        /// Concurrency primitives with no dependencies (Sharding), below both
        /// the HTTP engine and the Axiom runtime.
        case primitive
        /// Text formats every layer writes (JSON, the calendar): `Formats`.
        case format
        /// The executable that wires everything (AxiomServer).
        case composition
        /// Tests, benchmarks: may use anything.
        case tooling
    }

    /// Layers each layer may depend on and import (package targets only;
    /// toolchain modules such as Foundation are not package targets).
    static func allowed(for layer: Layer) -> Set<Layer>? {
        switch layer {
        case .systemLibrary, .primitive, .format: []
        case .framework: [.primitive]
        case .domain: [.format]
        // http: the outbound HTTP client reads responses with the server's parser.
        case .capability: [.framework, .domain, .http, .systemLibrary]
        case .client: [.framework, .domain, .capability]
        case .context: [.framework, .domain, .client]
        case .presentation: [.framework, .domain, .context, .http, .format]
        case .http: [.systemLibrary, .primitive, .format]
        case .composition, .tooling: nil
        }
    }

    /// The layer of a target, by its type and name; `nil` for a target that
    /// fits no layer (itself a violation: every target must have one).
    static func layer(of target: PackageGraph.Target) -> Layer? {
        let name = target.name
        if name == "AxiomServer" { return .composition }
        switch target.type {
        case "test", "executable", "plugin", "macro": return .tooling
        case "system": return .systemLibrary
        default: break
        }
        // Support code that lives with the tests (e.g. Tests/TestSupport).
        if target.directory.hasPrefix("Tests/") { return .tooling }
        switch name {
        case "Axiom": return .framework
        case "Domain": return .domain
        case "HTTPServer": return .http
        case "Sharding": return .primitive
        case "Formats": return .format

        // The fuzz targets' shared crash-file replay: a tool's library.
        case "FuzzReplay": return .tooling
        default: break
        }
        // C shims and module maps: CSQLite, CSodium, CSystemShims.
        if name.count > 1, name.first == "C", name.dropFirst().first?.isUppercase == true { return .systemLibrary }
        if name.hasPrefix("Capabilities") { return .capability }
        if name.hasSuffix("Client") { return .client }
        if name.hasPrefix("Contexts") { return .context }
        if name.hasPrefix("Presentation") { return .presentation }
        return nil
    }

    struct Violation: Equatable, CustomStringConvertible {
        let file: String
        let line: Int
        let message: String

        var description: String { "\(file):\(line): \(message)" }
    }

    struct Result {
        let violations: [Violation]
        let scannedFiles: Set<String>
        let imports: [ImportLine]
        let layers: [String: Layer]
    }

    static func check(_ graph: PackageGraph) throws -> Result {
        var layers: [String: Layer] = [:]
        var violations: [Violation] = []
        let manifestLines = (try? String(contentsOf: graph.root.appendingPathComponent("Package.swift"),
                                         encoding: .utf8))?.split(separator: "\n", omittingEmptySubsequences: false)
            ?? []
        func manifestLine(of target: String) -> Int {
            (manifestLines.firstIndex { $0.contains("name: \"\(target)\"") } ?? 0) + 1
        }
        for target in graph.targets {
            if let layer = layer(of: target) {
                layers[target.name] = layer
            } else {
                violations.append(Violation(file: "Package.swift", line: manifestLine(of: target.name),
                                            message: "target '\(target.name)' belongs to no layer"))
            }
        }
        func describe(_ layer: Layer?) -> String { layer?.rawValue ?? "unlayered" }
        func allowedList(_ allowed: Set<Layer>) -> String {
            allowed.isEmpty ? "no package target" : allowed.map(\.rawValue).sorted().joined(separator: ", ")
        }

        var allImports: [ImportLine] = []
        for target in graph.targets {
            guard let layer = layers[target.name], let allowed = allowed(for: layer) else { continue }
            for dependency in target.dependencies {
                let dependencyLayer = layers[dependency]
                if dependencyLayer.map({ !allowed.contains($0) }) ?? true {
                    violations.append(Violation(
                        file: "Package.swift", line: manifestLine(of: target.name),
                        message: "\(layer.rawValue) target '\(target.name)' declares a dependency on '\(dependency)' "
                            + "(\(describe(dependencyLayer))); a \(layer.rawValue) may depend on \(allowedList(allowed))"))
                }
            }
        }
        for target in graph.targets {
            let directory = graph.root.appendingPathComponent(target.directory)
            let imports = try ImportScanner.imports(in: directory, root: graph.root, excluding: target.excluded)
            allImports += imports
            guard let layer = layers[target.name], let allowed = allowed(for: layer) else { continue }
            for line in imports {
                guard graph.target(named: line.module) != nil else { continue }  // toolchain module
                let imported = layers[line.module]
                if line.module == target.name { continue }
                if imported.map({ !allowed.contains($0) }) ?? true {
                    violations.append(Violation(
                        file: line.file, line: line.line,
                        message: "\(layer.rawValue) target '\(target.name)' imports '\(line.module)' "
                            + "(\(describe(imported))); a \(layer.rawValue) may import \(allowedList(allowed))"))
                }
            }
        }
        violations.sort { ($0.file, $0.line, $0.message) < ($1.file, $1.line, $1.message) }
        return Result(violations: violations, scannedFiles: Set(allImports.map(\.file)), imports: allImports,
                      layers: layers)
    }
}
