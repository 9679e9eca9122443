import Dispatch
import Synchronization

/// A TCP connection to a host, plain or TLS, for the protocol clients that
/// talk to other servers (SMTP, HTTPS). Every blocking step (resolving,
/// connecting, the handshake, reads and writes, each bounded by a
/// deadline) runs on the connection's own serial Dispatch queue; callers
/// await it, so neither the concurrency pool nor an event loop ever waits
/// on the network.
///
/// One conversation at a time: a protocol client issues one call, awaits
/// it, then the next. The socket and TLS state are touched only on `queue`.
public final class OutboundConnection: @unchecked Sendable {
    /// The name connected to (what the certificate is verified for).
    public let host: String
    /// The address the connection reached.
    public let peer: PeerAddress
    private let queue: DispatchQueue
    private let socket: StreamSocket
    private var tls: TLSStream?
    private var isClosed = false
    private let secured = Atomic<Bool>(false)

    private init(host: String, peer: PeerAddress, queue: DispatchQueue, socket: StreamSocket, tls: TLSStream?) {
        self.host = host
        self.peer = peer
        self.queue = queue
        self.socket = socket
        self.tls = tls
        secured.store(tls != nil, ordering: .releasing)
    }

    /// A connection to the first admitted address of `host` that accepts
    /// one, by `options.timeout`; with `options.tls`, TLS is negotiated and
    /// the certificate verified for `host` before this returns.
    public static func connect(host: String, port: UInt16, options: ConnectOptions) async throws(NetError)
        -> OutboundConnection {
        let queue = DispatchQueue(label: "axiom.net.connection")
        return try await perform(on: queue) { () throws(NetError) -> OutboundConnection in
            let deadline = Deadline(after: options.timeout)
            let addresses = try HostResolver.resolve(host, port: port)
            let admitted = addresses.filter(options.admit)
            guard !admitted.isEmpty else {
                throw .addressRefused(host: host, addresses: addresses.map(\.ip))
            }
            var failure = NetError.connectFailed(host: host, reason: "no address")
            for address in admitted {
                let socket: StreamSocket
                do throws(NetError) {
                    socket = try StreamSocket.connect(to: address, by: deadline)
                } catch {
                    // Another address may answer; a timeout ends the attempt.
                    guard case .connectFailed(_, let reason) = error else { throw error }
                    failure = .connectFailed(host: host, reason: "\(address): \(reason)")
                    continue
                }
                let tls = try options.tls.map { context throws(NetError) in
                    try TLSStream(over: socket, host: host, context: context, by: deadline)
                }
                return OutboundConnection(host: host, peer: address, queue: queue, socket: socket, tls: tls)
            }
            throw failure
        }
    }

    /// True once TLS protects the connection (implicit or after `startTLS`).
    public var isSecure: Bool { secured.load(ordering: .acquiring) }

    /// Upgrades the plain connection to TLS (STARTTLS, RFC 3207): the
    /// handshake and the certificate check for `host`, by `timeout`.
    public func startTLS(_ context: TLSClientContext, timeout: Duration) async throws(NetError) {
        try await perform { () throws(NetError) in
            guard self.tls == nil else { return }
            self.tls = try TLSStream(over: self.socket, host: self.host, context: context, by: Deadline(after: timeout))
            self.secured.store(true, ordering: .releasing)
        }
    }

    /// The next bytes from the peer (at least one, at most `maxBytes`),
    /// waited for at most `timeout`.
    public func read(maxBytes: Int = 16 * 1024, timeout: Duration) async throws(NetError) -> [UInt8] {
        try await perform { () throws(NetError) -> [UInt8] in
            let deadline = Deadline(after: timeout)
            var bytes = [UInt8](repeating: 0, count: maxBytes)
            let count = try bytes.withUnsafeMutableBytes { buffer in
                Result { () throws(NetError) -> Int in
                    if let tls = self.tls { return try tls.read(into: buffer, by: deadline) }
                    return try self.socket.read(into: buffer, by: deadline)
                }
            }.get()
            bytes.removeSubrange(count...)
            return bytes
        }
    }

    /// Writes all of `bytes` within `timeout`.
    public func write(_ bytes: [UInt8], timeout: Duration) async throws(NetError) {
        try await perform { () throws(NetError) in
            let deadline = Deadline(after: timeout)
            try bytes.withUnsafeBytes { buffer in
                Result { () throws(NetError) in
                    if let tls = self.tls { try tls.write(buffer, by: deadline) } else { try self.socket.write(buffer, by: deadline) }
                }
            }.get()
        }
    }

    /// Closes the connection (TLS close_notify first), after any call in
    /// progress; later calls fail.
    public func close() {
        queue.async {
            guard !self.isClosed else { return }
            self.isClosed = true
            self.tls?.shutdown()
            self.socket.close()
        }
    }

    private func perform<T: Sendable>(_ work: @escaping @Sendable () throws(NetError) -> T) async throws(NetError) -> T {
        try await Self.perform(on: queue) { () throws(NetError) -> T in
            guard !self.isClosed else { throw .ioFailed("the connection is closed") }
            return try work()
        }
    }

    private static func perform<T: Sendable>(on queue: DispatchQueue,
                                             _ work: @escaping @Sendable () throws(NetError) -> T)
        async throws(NetError) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, NetError>, Never>) in
            queue.async { continuation.resume(returning: Result(catching: work)) }
        }
        return try result.get()
    }
}
