import Foundation
import Testing

/// One way to call a client: a change is an action whose outcome type the
/// compiler knows (`send(.name(…))`), a read is a query function. The
/// compiler keeps a context from calling a client's write functions (they
/// are internal to the client's module); this check keeps the outcome of a
/// send from being re-typed at run time, the pattern actions replaced.
@Suite("Client call style")
struct ClientCallStyleTests {
    static let sources = LayerRuleTests.root.appendingPathComponent("Sources")

    /// `(file, line)` of every line in `directory`'s Swift files matching `pattern`.
    static func matches(_ pattern: String, under directory: URL) throws -> [String] {
        let expression = try NSRegularExpression(pattern: pattern)
        var found: [String] = []
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                if expression.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
                    found.append("\(file.lastPathComponent):\(number + 1): \(line)")
                }
            }
        }
        return found
    }

    @Test("no context matches a client's answer against a case of an outcome enum")
    func outcomesAreTyped() throws {
        let retyped = try Self.matches(#"case \.\w+\(let .*=\s*try await .*\.send\("#,
                                       under: Self.sources.appendingPathComponent("Contexts"))
        #expect(retyped.isEmpty, "\(retyped.joined(separator: "\n"))")
    }

    @Test("no client takes an untyped action: a client's send is Axiom's, generic over ClientAction")
    func clientsDeclareActionTypes() throws {
        let sends = try Self.matches(#"func send\(_ \w+: \w+Action\)"#, under: Self.sources)
        #expect(sends.isEmpty, "\(sends.joined(separator: "\n"))")
        // The pattern reads real code: the one generic send in Axiom is found.
        let generic = try Self.matches(#"func send<A: ClientAction>"#,
                                       under: Self.sources.appendingPathComponent("Axiom"))
        #expect(generic.count == 2)
    }
}
