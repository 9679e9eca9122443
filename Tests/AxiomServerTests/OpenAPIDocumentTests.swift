import Axiom
import Foundation
import HTTPServer
import Testing
@testable import AxiomServer

/// openapi.yaml describes exactly the routes the server serves: the router's
/// (method, pattern) set and the document's operations are the same set.
@Suite(.serialized) struct OpenAPIDocumentTests {
    /// Operations under `paths:`, read from the document's fixed layout
    /// (two-space indentation: a path at 2, its methods at 4).
    static func documentedOperations() throws -> Set<String> {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("openapi.yaml"), encoding: .utf8)
        var operations = Set<String>()
        var inPaths = false
        var path: String?
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") && !line.isEmpty { inPaths = line == "paths:" }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                path = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":"),
                      let path, methods.contains(String(line.dropFirst(4).dropLast())) {
                operations.insert("\(line.dropFirst(4).dropLast().uppercased()) \(path)")
            }
        }
        return operations
    }

    @Test func routesAndDocumentedOperationsAreTheSameSet() async throws {
        let served = try await InProcessService.read { _ in } _: { service in
            Set(service.routes.map { "\($0.method.rawValue) \($0.pattern)" })
        }

        let documented = try Self.documentedOperations()
        #expect(!documented.isEmpty)
        #expect(served.subtracting(documented).isEmpty, "served but not documented: \(served.subtracting(documented).sorted())")
        #expect(documented.subtracting(served).isEmpty, "documented but not served: \(documented.subtracting(served).sorted())")
    }
}
