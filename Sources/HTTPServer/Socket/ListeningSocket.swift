import CSystemShims
import Glibc

/// A non-blocking TCP listening socket (socket/bind/listen), and accept4 on it.
struct ListeningSocket {
    let fd: Int32
    let port: Int

    init(host: String, port: Int, backlog: Int32) throws {
        let fd = try SocketAddress.withSockaddr(host: host, port: port) { address, length, family -> Int32 in
            let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw SocketError("socket") }
            var on: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            guard bind(fd, address, length) == 0 else {
                let error = SocketError("bind \(host):\(port)")
                close(fd)
                throw error
            }
            guard listen(fd, backlog) == 0 else {
                let error = SocketError("listen")
                close(fd)
                throw error
            }
            return fd
        }
        self.fd = fd
        do {
            self.port = try SocketAddress.boundPort(of: fd)
        } catch {
            close(fd)
            throw error
        }
    }

    enum AcceptResult {
        case accepted(fd: Int32, peer: String)
        /// Nothing more to accept right now.
        case drained
        /// Out of descriptors (EMFILE/ENFILE/ENOBUFS/ENOMEM): back off.
        case exhausted(Int32)
        /// A per-connection failure (ECONNABORTED, EPROTO…): try the next one.
        case skipped
    }

    func acceptOne() -> AcceptResult {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let client = retryingOnInterrupt {
            withUnsafeMutablePointer(to: &storage) {
                axiom_accept4(fd, $0, &length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
            }
        }
        guard client >= 0 else {
            switch errno {
            case EAGAIN, EWOULDBLOCK: return .drained
            case EMFILE, ENFILE, ENOBUFS, ENOMEM: return .exhausted(errno)
            default: return .skipped
            }
        }
        var on: Int32 = 1
        setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return .accepted(fd: client, peer: withUnsafePointer(to: &storage) { SocketAddress.describe($0) })
    }
}
