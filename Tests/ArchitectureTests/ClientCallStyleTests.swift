import Foundation
import Testing

/// One way to call a client: a context holds a `ClientHandle` and calls
/// through it (`handle.call { try await $0.name(…) }`), reads and writes
/// alike, so every call is counted in the client's metrics. The compiler
/// keeps the client itself out of a context's reach (the handle's `client`
/// is internal to Axiom); these checks keep the rest of the rule: no
/// second style comes back, and a client's reads are all `nonisolated`
/// (no hop onto its actor), its isolated functions all writes.
@Suite("Client call style")
struct ClientCallStyleTests {
    static let sources = LayerRuleTests.root.appendingPathComponent("Sources")
    static let clients = ["CartClient", "CatalogClient", "OrderClient", "PaymentClient", "PricingClient", "UserClient",
                          "WishlistClient", "JobClient", "WebhookClient"]

    /// The Swift files under `directory`, with their text.
    static func files(under directory: URL) throws -> [(name: String, text: String)] {
        var found: [(String, String)] = []
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            found.append((file.lastPathComponent, try String(contentsOf: file, encoding: .utf8)))
        }
        return found
    }

    /// `(file, line)` of every line in `directory`'s Swift files matching `pattern`.
    static func matches(_ pattern: String, under directory: URL) throws -> [String] {
        let expression = try NSRegularExpression(pattern: pattern)
        var found: [String] = []
        for (name, text) in try files(under: directory) {
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                if expression.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
                    found.append("\(name):\(number + 1): \(line)")
                }
            }
        }
        return found
    }

    @Test("no action types and no send: contexts call clients through their handle's call only")
    func oneCallStyle() throws {
        let actions = try Self.matches(#"ClientAction|\w+s\.send\(\.\w+\(|\.client\."#, under: Self.sources)
        #expect(actions.isEmpty, "\(actions.joined(separator: "\n"))")
        // The pattern reads real code: the contexts' calls are found.
        let calls = try Self.matches(#"\.call(\(| \{)"#, under: Self.sources.appendingPathComponent("Contexts"))
        #expect(calls.count > 50)
    }

    @Test("every public function of a client that is isolated to its actor writes: reads are nonisolated")
    func readsAreNonisolated() throws {
        // A write commits through storage or queues a write; the lifecycle
        // and change-feed hooks are the runtime's, not a context's.
        let writes = ["durableWrite", "sequencedWrite", "write(", "write {", "writeUser(", "create(", "settlesDue", "placeOnce"]
        let hooks: Set<String> = ["activate", "deactivate", "apply", "resynchronize"]
        let declaration = try NSRegularExpression(pattern: #"^    public func (\w+)"#, options: .anchorsMatchLines)
        var isolatedReads: [String] = []
        var isolatedWrites = 0
        for client in Self.clients {
            for (name, text) in try Self.files(under: Self.sources.appendingPathComponent(client)) {
                let whole = NSRange(text.startIndex..., in: text)
                for match in declaration.matches(in: text, range: whole) {
                    let function = String(text[Range(match.range(at: 1), in: text)!])
                    if hooks.contains(function) { continue }
                    let start = Range(match.range, in: text)!.lowerBound
                    let body = Self.body(in: text, from: start)
                    if writes.contains(where: body.contains) {
                        isolatedWrites += 1
                    } else {
                        isolatedReads.append("\(name): \(function)")
                    }
                }
            }
        }
        #expect(isolatedReads.isEmpty, "\(isolatedReads.joined(separator: "\n"))")
        #expect(isolatedWrites > 20)
    }

    /// The text of the function declared at `start`, to its closing brace.
    static func body(in text: String, from start: String.Index) -> Substring {
        guard let open = text[start...].firstIndex(of: "{") else { return text[start...] }
        var depth = 0
        var index = open
        while index < text.endIndex {
            switch text[index] {
            case "{": depth += 1
            case "}":
                depth -= 1
                if depth == 0 { return text[start...index] }
            default: break
            }
            index = text.index(after: index)
        }
        return text[start...]
    }
}
