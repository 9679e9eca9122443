import Foundation

/// One `import` line of a source file.
struct ImportLine: Equatable {
    /// Path relative to the package root.
    let file: String
    let line: Int
    let module: String
}

/// Finds the `import` declarations of Swift files: plain, `@testable`,
/// `@_exported`, with an access level (`public import`) or of one symbol
/// (`import struct M.T`). Comments are skipped.
enum ImportScanner {
    static let modifiers: Set<String> = ["public", "package", "internal", "fileprivate", "private", "open"]
    static let symbolKinds: Set<String> = ["struct", "class", "enum", "protocol", "typealias", "func", "var",
                                           "let", "actor"]

    static func imports(in directory: URL, root: URL, excluding excluded: [String] = []) throws -> [ImportLine] {
        guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else {
            return []
        }
        let excludedPaths = excluded.map { directory.appendingPathComponent($0).standardizedFileURL.path }
        var found: [ImportLine] = []
        for case let file as URL in walker where file.pathExtension == "swift" {
            let path = file.standardizedFileURL.path
            if excludedPaths.contains(where: { path.hasPrefix($0) }) { continue }
            let relative = String(path.dropFirst(root.standardizedFileURL.path.count + 1))
            let text = try String(contentsOf: file, encoding: .utf8)
            found += imports(inSource: text, file: relative)
        }
        return found.sorted { ($0.file, $0.line) < ($1.file, $1.line) }
    }

    static func imports(inSource text: String, file: String) -> [ImportLine] {
        var found: [ImportLine] = []
        var inBlockComment = false
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = Substring(rawLine)
            if inBlockComment {
                guard let end = line.range(of: "*/") else { continue }
                line = line[end.upperBound...]
                inBlockComment = false
            }
            line = line.drop { $0 == " " || $0 == "\t" }
            if line.hasPrefix("/*") {
                if let end = line.range(of: "*/") { line = line[end.upperBound...] } else { inBlockComment = true; continue }
            }
            if let module = module(imported: line) {
                found.append(ImportLine(file: file, line: index + 1, module: module))
            }
        }
        return found
    }

    /// The module named by an import declaration on `line`, if it is one.
    static func module(imported line: Substring) -> String? {
        let code = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line
        var tokens = code.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)[...]
        while let first = tokens.first, first.hasPrefix("@") || modifiers.contains(first) {
            tokens = tokens.dropFirst()
        }
        guard tokens.first == "import" else { return nil }
        tokens = tokens.dropFirst()
        if let kind = tokens.first, symbolKinds.contains(kind) { tokens = tokens.dropFirst() }
        guard let path = tokens.first, let module = path.split(separator: ".").first else { return nil }
        return String(module)
    }
}
