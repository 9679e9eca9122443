import Foundation
import Testing

/// The build-time rule check (RFC-001 section 6.2) over this repository.
@Suite("Layer rules of this package")
struct LayerRuleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test("every target has a layer and imports only what its layer may (2.1, 2.2, 2.3, 2.5, 2.6)")
    func packageObeysLayerRules() async throws {
        let graph = try await PackageGraph.load(Self.root)
        let result = try LayerRules.check(graph)
        #expect(result.violations.isEmpty, "\(result.violations.map(\.description).joined(separator: "\n"))")
        #expect(result.layers["Axiom"] == .framework)
        #expect(result.layers["Domain"] == .domain)
        #expect(result.layers["Capabilities"] == .capability)
        #expect(result.layers["Contexts"] == .context)
        #expect(result.layers["HTTPServer"] == .http)
        #expect(result.layers["Formats"] == .format)
        #expect(result.layers["AxiomServer"] == .composition)
        // The check read real files: the runtime's own imports are among them.
        #expect(result.imports.contains { $0.file.hasPrefix("Sources/Capabilities/") && $0.module == "Axiom" })
        #expect(result.imports.contains { $0.file.hasPrefix("Sources/Contexts/") && $0.module == "Axiom" })
        // The outbound HTTP client's use of the server's response parser is allowed.
        #expect(result.imports.contains { $0.file.hasPrefix("Sources/Capabilities/") && $0.module == "HTTPServer" })
    }

    @Test("the layer table forbids what RFC-001 section 2 forbids")
    func layerTable() {
        let allowed = { (layer: LayerRules.Layer) in LayerRules.allowed(for: layer) ?? [] }
        #expect(allowed(.client) == [.framework, .domain, .capability])       // 2.1, 2.6: no client
        #expect(allowed(.context) == [.framework, .domain, .client])          // 2.2: no capability
        #expect(allowed(.capability) == [.framework, .domain, .http, .systemLibrary])  // 2.3: no client, no context
        #expect(allowed(.presentation).contains(.client) == false)           // 2.4: contexts only
        #expect(allowed(.presentation).contains(.capability) == false)
        #expect(allowed(.framework) == [.primitive] && allowed(.primitive).isEmpty && allowed(.format).isEmpty)
        #expect(allowed(.domain) == [.format])                                // values and their JSON, nothing else
        #expect(allowed(.http) == [.systemLibrary, .primitive, .format])      // knows no domain

        #expect(LayerRules.allowed(for: .composition) == nil)
    }

    @Test("imports are read in every form, comments are not")
    func importForms() {
        let source = """
            import Foundation
            @testable import Axiom
            public import Domain
            import struct Capabilities.SystemClockCapability
            @_spi(Testing) internal import Contexts // trailing comment
            // import UserClient
            /* import CartClient
               import OrderClient */
            let text = "import PricingClient"
            """
        #expect(ImportScanner.imports(inSource: source, file: "F.swift").map(\.module)
                == ["Foundation", "Axiom", "Domain", "Capabilities", "Contexts"])
        #expect(ImportScanner.imports(inSource: source, file: "F.swift").map(\.line) == [1, 2, 3, 4, 5])
    }
}
