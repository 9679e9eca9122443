/// A copy of the context DAG at one moment: what the validator checks and
/// what the introspection document shows.
public struct ContextGraphSnapshot: Sendable, Codable, Equatable {
    public struct Node: Sendable, Codable, Equatable {
        public let id: ContextID
        public let type: String
        public let isRoot: Bool
    }

    public struct Edge: Sendable, Codable, Equatable {
        public let upstream: ContextID
        public let downstream: ContextID
    }

    public let nodes: [Node]
    public let edges: [Edge]
    /// Distinct objects among the nodes; equals `nodes.count` when no
    /// instance is registered twice (constraint 2.11).
    public let distinctInstances: Int

    /// Node ids on a cycle, found with Kahn's algorithm; empty for a DAG.
    public func nodesOnCycles() -> [ContextID] {
        var indegree: [ContextID: Int] = [:]
        var downstream: [ContextID: [ContextID]] = [:]
        for node in nodes { indegree[node.id] = 0 }
        for edge in edges {
            indegree[edge.downstream, default: 0] += 1
            downstream[edge.upstream, default: []].append(edge.downstream)
        }
        var ready = indegree.filter { $0.value == 0 }.map(\.key)
        while let next = ready.popLast() {
            indegree[next] = nil
            for child in downstream[next] ?? [] {
                guard let degree = indegree[child] else { continue }
                indegree[child] = degree - 1
                if degree - 1 == 0 { ready.append(child) }
            }
        }
        return indegree.keys.sorted()
    }
}
