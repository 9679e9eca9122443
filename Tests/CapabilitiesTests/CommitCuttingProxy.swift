import Foundation
import Glibc
import Synchronization

/// A TCP relay between the storage and PostgreSQL that, once armed, breaks
/// the first connection whose client sends a `COMMIT`: either after passing
/// it on, dropping the server's answer (the commit happens, its
/// acknowledgement is lost), or before (it never reaches the server).
/// Connections made afterwards are relayed whole, or refused when
/// `refusesAfterCut` is set. `dropConnections` breaks them all at once.
final class CommitCuttingProxy: @unchecked Sendable {
    enum Cut: Sendable { case loseAnswer, dropCommit }

    // @unchecked: the mutable state is in the Mutex; file descriptors are
    // used by the threads that own them.
    private struct State {
        var armed: Cut?
        var cuts = 0
        var refusesAfterCut = false
        var sockets: [Int32] = []
    }

    let port: UInt16
    private let listener: Int32
    private let upstream: (host: String, port: UInt16)
    private let state = Mutex(State())

    /// Relays to the server `url` names (`postgres://user@host:port/…`).
    init(relayingTo url: String) throws {
        guard let at = url.firstIndex(of: "@"),
              let slash = url[at...].firstIndex(of: "/"),
              let colon = url[at..<slash].lastIndex(of: ":"),
              let port = UInt16(url[url.index(after: colon)..<slash]) else {
            throw ProxyError("no host:port in \(url)")
        }
        upstream = (String(url[url.index(after: at)..<colon]), port)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.address("127.0.0.1", 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 64) == 0 else { throw ProxyError("cannot listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        self.port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// `url` with its host and port replaced by the relay's.
    func url(_ url: String) -> String {
        url.replacingOccurrences(of: "@\(upstream.host):\(upstream.port)/", with: "@127.0.0.1:\(port)/")
    }

    func arm(_ cut: Cut, refusingAfterwards: Bool = false) {
        state.withLock {
            $0.armed = cut
            $0.refusesAfterCut = refusingAfterwards
        }
    }

    var cuts: Int { state.withLock { $0.cuts } }

    /// Breaks every connection relayed so far, as a restarting server does;
    /// the client sees it only when it next uses one.
    func dropConnections() {
        let sockets = state.withLock { state in
            defer { state.sockets = [] }
            return state.sockets
        }
        for socket in sockets { shutdown(socket, Int32(SHUT_RDWR)) }
    }

    func close() {
        shutdown(listener, Int32(SHUT_RDWR))
        Glibc.close(listener)
        for socket in state.withLock({ $0.sockets }) { shutdown(socket, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 { return }
            let refused = state.withLock { $0.cuts > 0 && $0.refusesAfterCut }
            if refused {
                Glibc.close(client)
                continue
            }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.address(upstream.host, upstream.port)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                Glibc.close(client)
                Glibc.close(server)
                continue
            }
            state.withLock { $0.sockets += [client, server] }
            let answersLost = Atomic(false)
            Thread.detachNewThread { [self] in relayRequests(from: client, to: server, answersLost: answersLost) }
            Thread.detachNewThread { Self.relayAnswers(from: server, to: client, answersLost: answersLost) }
        }
    }

    private func relayRequests(from client: Int32, to server: Int32, answersLost: borrowing Atomic<Bool>) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(client, &buffer, buffer.count)
            if count <= 0 { break }
            let chunk = Array(buffer[..<count])
            let cut: Cut? = Self.carriesCommit(chunk) ? state.withLock { state in
                defer { if state.armed != nil { state.cuts += 1; state.armed = nil } }
                return state.armed
            } : nil
            switch cut {
            case .dropCommit?:
                break
            case .loseAnswer?:
                answersLost.store(true, ordering: .sequentiallyConsistent)
                Self.writeAll(server, chunk)
                // Long enough for the server to commit and answer (dropped).
                usleep(300_000)
            case nil:
                if Self.writeAll(server, chunk) { continue }
            }
            break
        }
        shutdown(client, Int32(SHUT_RDWR))
        shutdown(server, Int32(SHUT_RDWR))
    }

    private static func relayAnswers(from server: Int32, to client: Int32, answersLost: borrowing Atomic<Bool>) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(server, &buffer, buffer.count)
            if count <= 0 || answersLost.load(ordering: .sequentiallyConsistent) { break }
            if !writeAll(client, Array(buffer[..<count])) { break }
        }
        shutdown(client, Int32(SHUT_RDWR))
        shutdown(server, Int32(SHUT_RDWR))
    }

    private static func carriesCommit(_ chunk: [UInt8]) -> Bool {
        let word = Array("COMMIT".utf8)
        guard chunk.count >= word.count else { return false }
        return (0...(chunk.count - word.count)).contains { chunk[$0..<($0 + word.count)].elementsEqual(word) }
    }

    @discardableResult
    private static func writeAll(_ socket: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return false }
            sent += count
        }
        return true
    }

    private static func address(_ host: String, _ port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        return address
    }

    struct ProxyError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
