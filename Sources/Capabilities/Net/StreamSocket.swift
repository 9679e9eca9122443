import Glibc

/// A non-blocking TCP socket whose every step waits in poll(2) for at most
/// what is left of a deadline. Its calls block the calling thread, so an
/// `OutboundConnection` makes them on its own Dispatch queue only.
final class StreamSocket {
    let descriptor: Int32
    private var isClosed = false

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close() }

    /// A connection to `address` by `deadline` (non-blocking connect(2),
    /// then poll for writability and SO_ERROR for the outcome).
    static func connect(to address: PeerAddress, by deadline: Deadline) throws(NetError) -> StreamSocket {
        let family = address.family == .ipv4 ? AF_INET : AF_INET6
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                                    | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .connectFailed(host: address.description, reason: errnoText()) }
        let socket = StreamSocket(descriptor: descriptor)
        var one: Int32 = 1
        // Commands are short and answered one by one: Nagle would hold each.
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let rc = address.withSocketAddress { Glibc.connect(descriptor, $0, $1) }
        if rc != 0 {
            guard errno == EINPROGRESS else { throw .connectFailed(host: address.description, reason: errnoText()) }
            try socket.wait(for: Int16(POLLOUT), by: deadline, doing: "connecting to \(address)")
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length)
            guard failure == 0 else {
                throw .connectFailed(host: address.description, reason: String(cString: strerror(failure)))
            }
        }
        return socket
    }

    /// Waits until `events` (POLLIN, POLLOUT) are ready or `deadline` passes.
    func wait(for events: Int16, by deadline: Deadline, doing what: String) throws(NetError) {
        var entry = pollfd(fd: descriptor, events: events, revents: 0)
        while true {
            let ready = poll(&entry, 1, deadline.remainingMilliseconds)
            if ready > 0 { return }
            if ready == 0 { throw .timedOut(what) }
            guard errno == EINTR else { throw .ioFailed(Self.errnoText()) }
        }
    }

    /// Some bytes into `buffer`, waiting for them by `deadline`; throws
    /// `closedByPeer` at end of stream.
    func read(into buffer: UnsafeMutableRawBufferPointer, by deadline: Deadline) throws(NetError) -> Int {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return count }
            if count == 0 { throw .closedByPeer }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: try wait(for: Int16(POLLIN), by: deadline, doing: "reading")
            default: throw .ioFailed(Self.errnoText())
            }
        }
    }

    /// All of `bytes`, waiting for room by `deadline`.
    func write(_ bytes: UnsafeRawBufferPointer, by deadline: Deadline) throws(NetError) {
        var offset = 0
        while offset < bytes.count {
            // MSG_NOSIGNAL: a peer that went away is an error here, not SIGPIPE.
            let count = send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if count >= 0 {
                offset += count
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: try wait(for: Int16(POLLOUT), by: deadline, doing: "writing")
            case EPIPE, ECONNRESET: throw .closedByPeer
            default: throw .ioFailed(Self.errnoText())
            }
        }
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(descriptor)
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}
