import Synchronization

/// The open connections, for the connection caps, reclaiming and
/// shutdown. Touched on accept and close only, never per request.
final class ConnectionRegistry: Sendable {
    /// What happens to a connection just accepted.
    enum Admission {
        case admitted
        /// Admitted at `maxConnections` in place of `victims`, the
        /// connections quiet the longest, which are closed for it and the
        /// next few.
        case admittedReclaiming([HTTPConnection])
        /// Refused (503 and close): the server is full of busy connections.
        case overCapacity
        /// Refused (503 and close): its address has too many connections.
        case overAddressLimit
    }

    private struct State: @unchecked Sendable {
        var connections: [ObjectIdentifier: HTTPConnection] = [:]
        var addresses: AddressConnectionTable
    }

    private let maxConnections: Int
    private let state: Mutex<State>

    init(maxConnections: Int, perAddress: AddressConnectionTable) {
        self.maxConnections = maxConnections
        state = Mutex(State(addresses: perAddress))
    }

    var count: Int { state.withLock { $0.connections.count } }

    /// Decides whether a connection from `address` may be served. When the
    /// server is full, the connections quiet the longest (idle, or no byte
    /// of the request they are sending for the longest; see
    /// `HTTPConnection.quietSince`) are closed to make room: 12,000 idle
    /// sockets otherwise locked real clients out (503 on 34 of 150 requests)
    /// until the header timeout, and 10,000 slow bodies from 40 addresses
    /// (under the per-address cap) still got 18 of 248 requests a 503.
    func admit(from address: String) -> Admission {
        state.withLock { state -> Admission in
            guard state.addresses.admit(address) else { return .overAddressLimit }
            guard state.connections.count >= maxConnections else { return .admitted }
            let victims = Self.longestQuiet(in: state.connections, count: reclaimBatch)
            if !victims.isEmpty { return .admittedReclaiming(victims) }
            state.addresses.release(address)
            return .overCapacity
        }
    }

    /// How many quiet connections one scan reclaims: 1% of the cap. One at
    /// a time meant a scan of all 10,000 connections per accept while
    /// 12,000 idle sockets churned (about 1,500 reclaims a second).
    private var reclaimBatch: Int { max(1, maxConnections / 100) }

    /// Registers a connection, admitted or being refused.
    func insert(_ connection: HTTPConnection) {
        state.withLock { $0.connections[ObjectIdentifier(connection)] = connection }
    }

    func remove(_ connection: HTTPConnection) {
        state.withLock { state in
            guard state.connections.removeValue(forKey: ObjectIdentifier(connection)) != nil else { return }
            if !connection.isRejected { state.addresses.release(connection.peerHost) }
        }
    }

    func snapshot() -> [HTTPConnection] {
        state.withLock { Array($0.connections.values) }
    }

    /// Up to `count` connections quiet since the earliest instants, each
    /// claimed (its mark cleared) so no later scan picks it again. A scan
    /// of every connection, done only when the server is full.
    private static func longestQuiet(in connections: [ObjectIdentifier: HTTPConnection],
                                    count: Int) -> [HTTPConnection] {
        var quiet: [(since: Int64, connection: HTTPConnection)] = []
        for connection in connections.values {
            let since = connection.quietSince.load(ordering: .relaxed)
            if since != 0 { quiet.append((since, connection)) }
        }
        quiet.sort { $0.since < $1.since }
        return quiet.prefix(count).compactMap { candidate in
            candidate.connection.quietSince.compareExchange(expected: candidate.since, desired: 0,
                                                           ordering: .relaxed).exchanged ? candidate.connection : nil
        }
    }
}
