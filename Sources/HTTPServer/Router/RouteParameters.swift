/// The values a route's `{parameters}` matched, percent-decoded, in the
/// pattern's order. A route has a handful at most and each name once, so
/// a lookup walks the list: a dictionary would cost an allocation and
/// hashing every name on every routed request.
public struct RouteParameters: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    private var pairs: [(name: String, value: String)]

    public init() { pairs = [] }

    init(_ pairs: [(name: String, value: String)]) { self.pairs = pairs }

    public init(dictionaryLiteral elements: (String, String)...) {
        pairs = []
        for (name, value) in elements where !pairs.contains(where: { $0.name == name }) {
            pairs.append((name, value))
        }
    }

    public var isEmpty: Bool { pairs.isEmpty }
    public var count: Int { pairs.count }

    /// The value matched for `name`, nil when the route has no such parameter.
    public subscript(name: String) -> String? {
        for pair in pairs where pair.name == name { return pair.value }
        return nil
    }

    /// Equal when they hold the same names with the same values, in any order.
    public static func == (lhs: RouteParameters, rhs: RouteParameters) -> Bool {
        lhs.pairs.count == rhs.pairs.count && lhs.pairs.allSatisfy { rhs[$0.name] == $0.value }
    }
}
