import Synchronization

/// The open connections, for the timeout sweeper, the connection caps and
/// shutdown. Touched on accept and close only, never per request.
final class ConnectionRegistry: Sendable {
    /// What happens to a connection just accepted.
    enum Admission {
        case admitted
        /// Admitted in place of `victim`, an idle connection that is closed
        /// for it (the server was at `maxConnections`).
        case admittedReclaiming(HTTPConnection)
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
    /// server is full, the connection idle for longest (between requests,
    /// before its first byte, or lingering after its last response) is
    /// closed to make room: 12,000 idle sockets otherwise locked real
    /// clients out (503 on 34 of 150 requests) until the header timeout.
    func admit(from address: String) -> Admission {
        state.withLock { state -> Admission in
            guard state.addresses.admit(address) else { return .overAddressLimit }
            guard state.connections.count >= maxConnections else { return .admitted }
            if let victim = Self.longestIdle(in: state.connections) { return .admittedReclaiming(victim) }
            state.addresses.release(address)
            return .overCapacity
        }
    }

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

    /// The connection idle since the earliest instant, claimed (its mark
    /// cleared) so the next accept picks another. A scan of every
    /// connection, done only when the server is full.
    private static func longestIdle(in connections: [ObjectIdentifier: HTTPConnection]) -> HTTPConnection? {
        var oldest: (since: Int64, connection: HTTPConnection)?
        for connection in connections.values {
            let since = connection.idleSince.load(ordering: .relaxed)
            if since != 0, since < oldest?.since ?? .max { oldest = (since, connection) }
        }
        guard let oldest,
              oldest.connection.idleSince.compareExchange(expected: oldest.since, desired: 0, ordering: .relaxed).exchanged
        else { return nil }
        return oldest.connection
    }
}
