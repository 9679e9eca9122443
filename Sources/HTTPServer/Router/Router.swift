/// An async request handler: takes the request, returns the response. A
/// thrown `HTTPResponseError` becomes its problem response, so does an error
/// the router's `problem(for:)` renders; any other error is a 500.
public typealias HTTPHandler = @Sendable (HTTPRequest) async throws -> HTTPResponse

/// Maps method + path patterns (`/users/{id}`) to handlers. Built once at
/// start-up and then immutable. Literal segments win over parameters
/// (`/users/me` before `/users/{id}`); a path that exists with other methods
/// is a 405 with `Allow`, one that exists with none is a 404.
public struct Router: Sendable {
    public struct Route: Sendable {
        public let method: HTTPMethod
        public let pattern: String
        /// Whether the handler consumes the request body. Decides the answer
        /// to `Expect: 100-continue`: `100 Continue` only when true.
        public let readsBody: Bool
        /// Caching, validators and limits around the handler (``attach(_:to:_:)``).
        public internal(set) var policy: RoutePolicy
        var handler: HTTPHandler
    }

    private var nodes: [RouteNode] = [RouteNode()]
    public private(set) var routes: [Route] = []
    /// The problem a thrown error that is not an `HTTPResponseError` is
    /// answered with (nil: a 500, logged): how the application renders its
    /// own error protocol, in one place rather than by a conformance per
    /// error type. Called only when a handler throws.
    public var problem: @Sendable (any Error) -> HTTPError? = { _ in nil }

    public init() {}

    /// Registers `handler` for `method` on `pattern` with its `policy` (a
    /// route group states it beside the route). `readsBody` defaults to
    /// true for POST, PUT and PATCH.
    public mutating func on(_ method: HTTPMethod, _ pattern: String, readsBody: Bool? = nil,
                            policy: RoutePolicy = .standard, _ handler: @escaping HTTPHandler) {
        precondition(pattern.hasPrefix("/"), "route patterns start with '/': \(pattern)")
        var index = 0
        for segment in RoutePattern.segments(of: pattern) {
            if let name = RoutePattern.parameterName(segment) {
                if let edge = nodes[index].parameter {
                    precondition(edge.name == name, "conflicting parameter names at \(pattern)")
                    index = edge.child
                } else {
                    nodes.append(RouteNode())
                    nodes[index].parameter = (name, nodes.count - 1)
                    index = nodes.count - 1
                }
            } else if let child = nodes[index].literals[segment] {
                index = child
            } else {
                nodes.append(RouteNode())
                nodes[index].literals[segment] = nodes.count - 1
                index = nodes.count - 1
            }
        }
        precondition(nodes[index].routes[method] == nil, "duplicate route \(method) \(pattern)")
        let reads = readsBody ?? [.post, .put, .patch].contains(method)
        let route = Route(method: method, pattern: pattern, readsBody: reads, policy: policy, handler: handler)
        nodes[index].routes[method] = route
        routes.append(route)
    }

    /// Sets the policy of the route `method` `pattern`, registered before.
    public mutating func attach(_ policy: RoutePolicy, to method: HTTPMethod, _ pattern: String) {
        var index = 0
        for segment in RoutePattern.segments(of: pattern) {
            let next = RoutePattern.parameterName(segment) != nil ? nodes[index].parameter?.child : nodes[index].literals[segment]
            guard let next else { preconditionFailure("no route \(method) \(pattern) to attach a policy to") }
            index = next
        }
        precondition(nodes[index].routes[method] != nil, "no route \(method) \(pattern) to attach a policy to")
        nodes[index].routes[method]?.policy = policy
        if let position = routes.firstIndex(where: { $0.method == method && $0.pattern == pattern }) {
            routes[position].policy = policy
        }
    }

    /// Puts `wrap` around the handler of every route `selected` picks: work
    /// a deployment needs before or after many handlers (a read barrier),
    /// chosen where the routes are assembled, not in each handler.
    public mutating func wrapHandlers(of selected: (Route) -> Bool, _ wrap: (@escaping HTTPHandler) -> HTTPHandler) {
        for index in routes.indices where selected(routes[index]) {
            routes[index].handler = wrap(routes[index].handler)
            let route = routes[index]
            for node in nodes.indices where nodes[node].routes[route.method]?.pattern == route.pattern {
                nodes[node].routes[route.method] = route
            }
        }
    }

    public mutating func get(_ pattern: String, policy: RoutePolicy = .standard, _ handler: @escaping HTTPHandler) {
        on(.get, pattern, policy: policy, handler)
    }
    public mutating func post(_ pattern: String, policy: RoutePolicy = .standard, _ handler: @escaping HTTPHandler) {
        on(.post, pattern, policy: policy, handler)
    }
    public mutating func put(_ pattern: String, policy: RoutePolicy = .standard, _ handler: @escaping HTTPHandler) {
        on(.put, pattern, policy: policy, handler)
    }
    public mutating func patch(_ pattern: String, policy: RoutePolicy = .standard, _ handler: @escaping HTTPHandler) {
        on(.patch, pattern, policy: policy, handler)
    }
    public mutating func delete(_ pattern: String, policy: RoutePolicy = .standard, _ handler: @escaping HTTPHandler) {
        on(.delete, pattern, policy: policy, handler)
    }

    public enum Match: Sendable {
        case found(Route, parameters: RouteParameters)
        /// The path exists; these methods are allowed on it.
        case methodNotAllowed(allowed: [HTTPMethod])
        case notFound
    }

    /// Resolves a request. HEAD falls back to GET (the server drops the body).
    public func match(_ method: HTTPMethod, segments: [String]) -> Match {
        var parameters: [(name: String, value: String)] = []
        if let route = firstRoute(for: method, node: 0, segments: segments[...], parameters: &parameters) {
            return .found(route, parameters: RouteParameters(parameters))
        }
        // Every terminal node is the same path reached another way: Allow
        // lists the methods any of them would serve.
        var routed = Set<HTTPMethod>()
        collectMethods(node: 0, segments: segments[...], into: &routed)
        guard !routed.isEmpty else { return .notFound }
        return .methodNotAllowed(allowed: allowedMethods(routed))
    }

    /// The route for `method` at the first terminal node matching
    /// `segments`, literal matches before parameter ones, with the
    /// parameters on the way to it. Depth first, stopping at the first
    /// route: collecting every candidate node with a copy of its
    /// parameters first would cost two arrays per request.
    private func firstRoute(for method: HTTPMethod, node index: Int, segments: ArraySlice<String>,
                            parameters: inout [(name: String, value: String)]) -> Route? {
        // Read in place: a copy of the node retains and releases each of its
        // tables on every request.
        guard let segment = segments.first else {
            return nodes[index].routes[method] ?? (method == .head ? nodes[index].routes[.get] : nil)
        }
        if let child = nodes[index].literals[segment],
           let route = firstRoute(for: method, node: child, segments: segments.dropFirst(), parameters: &parameters) {
            return route
        }
        if let edge = nodes[index].parameter, !segment.isEmpty {
            parameters.append((edge.name, segment))
            if let route = firstRoute(for: method, node: edge.child, segments: segments.dropFirst(),
                                      parameters: &parameters) {
                return route
            }
            parameters.removeLast()
        }
        return nil
    }

    /// The methods routed at every terminal node matching `segments`.
    private func collectMethods(node index: Int, segments: ArraySlice<String>, into routed: inout Set<HTTPMethod>) {
        guard let segment = segments.first else {
            routed.formUnion(nodes[index].routes.keys)
            return
        }
        if let child = nodes[index].literals[segment] {
            collectMethods(node: child, segments: segments.dropFirst(), into: &routed)
        }
        if let edge = nodes[index].parameter, !segment.isEmpty {
            collectMethods(node: edge.child, segments: segments.dropFirst(), into: &routed)
        }
    }

    private func allowedMethods(_ routed: Set<HTTPMethod>) -> [HTTPMethod] {
        var methods = routed
        if methods.contains(.get) { methods.insert(.head) }
        methods.insert(.options)
        return methods.sorted { $0.rawValue < $1.rawValue }
    }
}

/// One position in the pattern trie.
private struct RouteNode: Sendable {
    var literals: [String: Int] = [:]
    var parameter: (name: String, child: Int)?
    var routes: [HTTPMethod: Router.Route] = [:]
}

enum RoutePattern {
    static func segments(of pattern: String) -> [String] {
        let parts = pattern.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        return parts == [""] ? [] : parts
    }

    /// `{name}` → `name`; anything else is a literal.
    static func parameterName(_ segment: String) -> String? {
        guard segment.count > 2, segment.hasPrefix("{"), segment.hasSuffix("}") else { return nil }
        return String(segment.dropFirst().dropLast())
    }
}
