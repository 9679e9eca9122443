import Synchronization

/// Every live context and the DAG of upstream → downstream edges between them
/// (RFC-001 section 4, constraint 2.8).
///
/// Only the orchestrator inserts, connects and releases; anyone may query.
/// An edge that would close a cycle is refused with
/// ``AxiomError/contextCycle(upstream:downstream:)``, so the graph is acyclic
/// at every moment, not only at validation time.
public final class ContextRegistry: Sendable {
    struct Node {
        let context: any Context
        let typeKey: ObjectIdentifier
        let typeName: String
        let isRoot: Bool
        var upstream: Set<ContextID> = []
        var downstream: Set<ContextID> = []
    }

    struct Graph {
        var nodes: [ContextID: Node] = [:]
        var edgeCount = 0
    }

    /// Registry of no orchestrator (for a context whose runtime has gone).
    static let detached = ContextRegistry()

    private let graph = Mutex(Graph())

    init() {}

    // MARK: Queries

    public var count: Int { graph.withLock { $0.nodes.count } }

    public var edgeCount: Int { graph.withLock { $0.edgeCount } }

    public func contains(_ id: ContextID) -> Bool {
        graph.withLock { $0.nodes[id] != nil }
    }

    public func context(_ id: ContextID) -> (any Context)? {
        graph.withLock { $0.nodes[id]?.context }
    }

    public func upstreamContexts(of id: ContextID) -> [any Context] {
        graph.withLock { graph in
            (graph.nodes[id]?.upstream ?? []).sorted().compactMap { graph.nodes[$0]?.context }
        }
    }

    public func downstreamContexts(of id: ContextID) -> [any Context] {
        graph.withLock { graph in
            (graph.nodes[id]?.downstream ?? []).sorted().compactMap { graph.nodes[$0]?.context }
        }
    }

    public var rootContexts: [any Context] {
        graph.withLock { graph in
            graph.nodes.filter { $0.value.isRoot }.sorted { $0.key < $1.key }.map(\.value.context)
        }
    }

    /// A copy of the graph for validation and introspection.
    public func snapshot() -> ContextGraphSnapshot {
        graph.withLock { graph in
            var nodes: [ContextGraphSnapshot.Node] = []
            var edges: [ContextGraphSnapshot.Edge] = []
            var instances = Set<ObjectIdentifier>()
            for (id, node) in graph.nodes.sorted(by: { $0.key < $1.key }) {
                nodes.append(.init(id: id, type: node.typeName, isRoot: node.isRoot))
                instances.insert(ObjectIdentifier(node.context))
                for child in node.downstream.sorted() {
                    edges.append(.init(upstream: id, downstream: child))
                }
            }
            return ContextGraphSnapshot(nodes: nodes, edges: edges, distinctInstances: instances.count)
        }
    }

    // MARK: Mutations (orchestrator only)

    func insert(_ context: any Context, typeName: String, upstream: ContextID?) throws {
        try graph.withLock { graph in
            if let upstream, graph.nodes[upstream] == nil {
                throw AxiomError.contextNotFound(upstream)
            }
            try Self.insert(context, typeName: typeName, upstream: upstream, in: &graph)
        }
    }

    /// The context of type `typeKey` downstream of `parent`: its own, else
    /// one already in the same graph (reachable from one of the parent's
    /// roots), connected as a shared downstream context when the edge keeps
    /// the graph acyclic, else the one `make` creates, inserted under
    /// `parent`. One lock for the whole look-up, so two requests of one
    /// session asking at once get the same context. `make` runs under the
    /// lock: it must not touch this registry (a context's `init` only claims
    /// its identity and resolves client handles).
    func downstream(of parent: ContextID, typeKey: ObjectIdentifier, admit: () throws -> Void,
                    make: () throws -> (context: any Context, typeName: String))
        throws -> (context: any Context, origin: DownstreamOrigin) {
        try graph.withLock { graph in
            guard let node = graph.nodes[parent] else { throw AxiomError.contextNotFound(parent) }
            for child in node.downstream {
                if let found = graph.nodes[child], found.typeKey == typeKey { return (found.context, .existing) }
            }
            try admit()
            if let shared = Self.find(typeKey, inGraphOf: parent, in: graph, where: {
                $0 != parent && !Self.reaches(from: $0, to: parent, in: graph)
            }) {
                try Self.connect(parent, shared, in: &graph)
                return (graph.nodes[shared]!.context, .shared)
            }
            let (context, typeName) = try make()
            try Self.insert(context, typeName: typeName, upstream: parent, in: &graph)
            return (context, .created(typeName))
        }
    }

    /// Where `downstream(of:…)` found its context.
    enum DownstreamOrigin {
        /// Already below the parent.
        case existing
        /// Elsewhere in the parent's graph, now also below the parent.
        case shared
        /// Made now, with this type name.
        case created(String)
    }

    func connect(upstream: ContextID, downstream: ContextID) throws {
        try graph.withLock { graph in
            try Self.connect(upstream, downstream, in: &graph)
        }
    }

    /// Removes `id`, its edges, and every downstream context left with no
    /// upstream (unless it is a root of its own). Returns the removed contexts,
    /// upstream first, so their `onDisappear` can run.
    func release(_ id: ContextID) -> [any Context] {
        graph.withLock { graph in
            var removed: [any Context] = []
            var work = [id]
            var isFirst = true
            while let next = work.popLast() {
                guard let node = graph.nodes[next] else { continue }
                if !isFirst, node.isRoot || !node.upstream.isEmpty { continue }
                isFirst = false
                graph.nodes[next] = nil
                removed.append(node.context)
                for parent in node.upstream {
                    graph.nodes[parent]?.downstream.remove(next)
                    graph.edgeCount -= 1
                }
                for child in node.downstream.sorted(by: >) {
                    graph.nodes[child]?.upstream.remove(next)
                    graph.edgeCount -= 1
                    work.append(child)
                }
            }
            return removed
        }
    }

    private static func insert(_ context: any Context, typeName: String, upstream: ContextID?,
                               in graph: inout Graph) throws {
        if let upstream, graph.nodes[upstream] == nil {
            throw AxiomError.contextNotFound(upstream)
        }
        graph.nodes[context.contextID] = Node(context: context, typeKey: ObjectIdentifier(type(of: context)),
                                              typeName: typeName, isRoot: upstream == nil)
        if let upstream {
            try connect(upstream, context.contextID, in: &graph)
        }
    }

    /// An acceptable context of type `typeKey` among everything reachable
    /// from the roots above `start` (its session's graph), breadth first.
    private static func find(_ typeKey: ObjectIdentifier, inGraphOf start: ContextID, in graph: Graph,
                             where acceptable: (ContextID) -> Bool) -> ContextID? {
        var roots: [ContextID] = []
        var seen: Set<ContextID> = [start]
        var work = [start]
        while let next = work.popLast() {
            guard let node = graph.nodes[next] else { continue }
            if node.upstream.isEmpty { roots.append(next) }
            for parent in node.upstream where seen.insert(parent).inserted { work.append(parent) }
        }
        var visited = Set(roots)
        var queue = roots.sorted()
        while !queue.isEmpty {
            let next = queue.removeFirst()
            guard let node = graph.nodes[next] else { continue }
            if node.typeKey == typeKey, acceptable(next) { return next }
            for child in node.downstream.sorted() where visited.insert(child).inserted { queue.append(child) }
        }
        return nil
    }

    private static func connect(_ upstream: ContextID, _ downstream: ContextID, in graph: inout Graph) throws {
        guard graph.nodes[upstream] != nil else { throw AxiomError.contextNotFound(upstream) }
        guard graph.nodes[downstream] != nil else { throw AxiomError.contextNotFound(downstream) }
        if graph.nodes[upstream]!.downstream.contains(downstream) { return }
        if upstream == downstream || reaches(from: downstream, to: upstream, in: graph) {
            throw AxiomError.contextCycle(upstream: upstream, downstream: downstream)
        }
        graph.nodes[upstream]!.downstream.insert(downstream)
        graph.nodes[downstream]!.upstream.insert(upstream)
        graph.edgeCount += 1
    }

    /// Whether `target` is reachable from `start` along downstream edges.
    private static func reaches(from start: ContextID, to target: ContextID, in graph: Graph) -> Bool {
        // A context just made has nothing below it yet, so the edge to it is
        // checked without allocating the walk's set and stack (the common
        // case: a new session's first request makes several contexts).
        guard graph.nodes[start]?.downstream.isEmpty == false else { return false }
        var seen: Set<ContextID> = [start]
        var work = [start]
        while let next = work.popLast() {
            for child in graph.nodes[next]?.downstream ?? [] {
                if child == target { return true }
                if seen.insert(child).inserted { work.append(child) }
            }
        }
        return false
    }
}
