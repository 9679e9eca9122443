import Synchronization

/// The open connections, for the connection caps, reclaiming and
/// shutdown. Touched on accept and close only, never per request.
final class ConnectionRegistry: Sendable {
    /// What happens to a connection just accepted.
    enum Admission {
        case admitted
        /// Admitted at a cap in place of `victims`, which are closed for it:
        /// at its address's cap, that address's connection quiet the
        /// longest; at `maxConnections`, the connections quiet the longest,
        /// for it and the next few.
        case admittedReclaiming([HTTPConnection])
        /// Refused (503 and close): the server is full of busy connections.
        case overCapacity
        /// Refused (503 and close): its address has too many connections,
        /// none of them quiet.
        case overAddressLimit
    }

    private struct State: @unchecked Sendable {
        var connections: [ObjectIdentifier: HTTPConnection] = [:]
        /// The admitted connections of each capped address, so reclaiming
        /// at an address's cap looks at that address's connections only.
        var byAddress: [String: [ObjectIdentifier: HTTPConnection]] = [:]
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
    /// (under the per-address cap) still got 18 of 248 requests a 503. The
    /// same at an address's cap, among that address's connections: a
    /// client that keeps idle keep-alive connections open (a pool) is not
    /// refused for them; one whose connections are all busy is.
    func admit(from address: String) -> Admission {
        state.withLock { state -> Admission in
            var victims: [HTTPConnection] = []
            if !state.addresses.admit(address) {
                if let own = state.byAddress[address]?.values { victims = Self.longestQuiet(in: own, count: 1) }
                guard !victims.isEmpty else { return .overAddressLimit }
                // One over the cap until the victim has closed.
                state.addresses.admitReplacing(address)
            }
            // A victim of the address frees a slot of the server as well.
            if victims.isEmpty, state.connections.count >= maxConnections {
                victims = Self.longestQuiet(in: state.connections.values, count: reclaimBatch)
                guard !victims.isEmpty else {
                    state.addresses.release(address)
                    return .overCapacity
                }
            }
            return victims.isEmpty ? .admitted : .admittedReclaiming(victims)
        }
    }

    /// How many quiet connections one scan reclaims: 1% of the cap, so
    /// idle sockets churning at the cap do not cost a scan of every
    /// connection per accept.
    private var reclaimBatch: Int { max(1, maxConnections / 100) }

    /// Registers a connection, admitted or being refused.
    func insert(_ connection: HTTPConnection) {
        state.withLock { state in
            let id = ObjectIdentifier(connection)
            state.connections[id] = connection
            if !connection.isRejected, state.addresses.caps(connection.peerHost) {
                state.byAddress[connection.peerHost, default: [:]][id] = connection
            }
        }
    }

    func remove(_ connection: HTTPConnection) {
        state.withLock { state in
            let id = ObjectIdentifier(connection)
            guard state.connections.removeValue(forKey: id) != nil, !connection.isRejected else { return }
            state.addresses.release(connection.peerHost)
            if state.byAddress[connection.peerHost]?.removeValue(forKey: id) != nil,
               state.byAddress[connection.peerHost]?.isEmpty == true {
                state.byAddress[connection.peerHost] = nil
            }
        }
    }

    func snapshot() -> [HTTPConnection] {
        state.withLock { Array($0.connections.values) }
    }

    /// Up to `count` of `connections` quiet since the earliest instants,
    /// each claimed (its mark cleared) so no later scan picks it again. A
    /// scan of every connection given, done only at a cap.
    private static func longestQuiet(in connections: some Sequence<HTTPConnection>,
                                    count: Int) -> [HTTPConnection] {
        var quiet: [(since: Int64, connection: HTTPConnection)] = []
        for connection in connections {
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
