import Formats

/// The walk behind `JSONSyntax.check`: `JSONReader` over every value,
/// keeping only each object's member names (to find duplicates) and the
/// path to where it is (to name the field of a number the API cannot take).
struct JSONSyntaxReader {
    private enum Step {
        case member([UInt8])
        case element(Int)
    }

    private var path: [Step] = []
    /// The first number the API cannot take, with where it is.
    private(set) var numberFinding: JSONSyntax.Verdict?

    /// Whether `reader` is at one JSON value, which it steps over.
    mutating func value(_ reader: inout JSONReader, depth: Int) -> Bool {
        guard depth < JSONSyntax.maxDepth, let byte = reader.current else { return false }
        switch byte {
        case UInt8(ascii: "{"): return object(&reader, depth: depth)
        case UInt8(ascii: "["): return array(&reader, depth: depth)
        case UInt8(ascii: "\""): return reader.string { _, _ in true }
        case UInt8(ascii: "t"): return reader.literal("true")
        case UInt8(ascii: "f"): return reader.literal("false")
        case UInt8(ascii: "n"): return reader.literal("null")
        default: return number(&reader)
        }
    }

    private mutating func object(_ reader: inout JSONReader, depth: Int) -> Bool {
        var names = Set<[UInt8]>()
        return reader.object { reader, name in
            // RFC 8259 section 4: a member name once per object (compared
            // after unescaping: "a" and "\u0061" are the same name).
            let name = Array(name)
            guard names.insert(name).inserted else { return false }
            path.append(.member(name))
            defer { path.removeLast() }
            return value(&reader, depth: depth + 1)
        }
    }

    private mutating func array(_ reader: inout JSONReader, depth: Int) -> Bool {
        var position = 0
        return reader.array { reader in
            path.append(.element(position))
            defer {
                path.removeLast()
                position += 1
            }
            return value(&reader, depth: depth + 1)
        }
    }

    private mutating func number(_ reader: inout JSONReader) -> Bool {
        guard let number = reader.number() else { return false }
        guard numberFinding == nil else { return true }
        switch number {
        case .integer: break
        case .fractional: numberFinding = .notAnInteger(path: pathText)
        case .outOfRange: numberFinding = .outOfRange(path: pathText)
        }
        return true
    }

    /// `items[2].quantity`, as `JSONBody.path` names a decoding error's place.
    private var pathText: String {
        var text = ""
        for step in path {
            switch step {
            case .element(let position): text += "[\(position)]"
            case .member(let name):
                let name = String(decoding: name, as: UTF8.self)
                text += text.isEmpty ? name : ".\(name)"
            }
        }
        return text.isEmpty ? "body" : text
    }
}
