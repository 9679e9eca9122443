import Foundation
import Glibc
import Testing
@testable import Capabilities

/// The TCP/TLS client on real sockets: a listener of this test's own on
/// 127.0.0.1, and the SMTP test server where TLS is needed.
@Suite struct OutboundConnectionTests {
    @Test func connectsReportsThePeerAndTimesOutAWaitForSilence() async throws {
        let listener = try LoopbackListener()
        let connection = try await OutboundConnection.connect(
            host: "127.0.0.1", port: listener.port, options: ConnectOptions(timeout: .seconds(5)))
        #expect(connection.peer == PeerAddress(family: .ipv4, octets: [127, 0, 0, 1], port: listener.port))
        #expect(connection.peer.description == "127.0.0.1:\(listener.port)")
        #expect(!connection.isSecure)
        let accepted = try listener.accept()
        defer { close(accepted) }
        await #expect(throws: NetError.timedOut("reading")) {
            _ = try await connection.read(timeout: .milliseconds(100))
        }
        try await connection.write(Array("ping".utf8), timeout: .seconds(5))
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = recv(accepted, &buffer, buffer.count, 0)
        #expect(Array(buffer.prefix(max(count, 0))) == Array("ping".utf8))
        close(accepted)
        await #expect(throws: NetError.closedByPeer) { _ = try await connection.read(timeout: .seconds(5)) }
        connection.close()
    }

    @Test func connectsOverIPv6() async throws {
        let listener = try LoopbackListener(ipv6: true)
        let connection = try await OutboundConnection.connect(
            host: "::1", port: listener.port, options: ConnectOptions(timeout: .seconds(5)))
        #expect(connection.peer.family == .ipv6)
        #expect(connection.peer.description == "[::1]:\(listener.port)")
        let accepted = try listener.accept()
        defer { close(accepted) }
        _ = send(accepted, "220 hi\r\n", 8, 0)
        #expect(try await connection.read(timeout: .seconds(5)) == Array("220 hi\r\n".utf8))
        connection.close()
    }

    @Test func theAdmissionRuleSeesEveryResolvedAddress() async throws {
        let listener = try LoopbackListener()
        let seen = SeenAddresses()
        let error = await #expect(throws: NetError.self) {
            _ = try await OutboundConnection.connect(
                host: "localhost", port: listener.port,
                options: ConnectOptions(timeout: .seconds(5)) { address in seen.add(address); return false })
        }
        #expect(error == .addressRefused(host: "localhost", addresses: seen.all.map(\.ip)))
        #expect(seen.all.contains { $0.ip == "127.0.0.1" && $0.port == listener.port })
    }

    @Test func aClosedPortIsAConnectFailure() async throws {
        let port = try LoopbackListener().port // closed again when released
        let error = await #expect(throws: NetError.self) {
            _ = try await OutboundConnection.connect(host: "127.0.0.1", port: port,
                                                     options: ConnectOptions(timeout: .seconds(5)))
        }
        guard case .connectFailed(_, let reason) = error else {
            Issue.record("not a connect failure: \(String(describing: error))")
            return
        }
        #expect(reason.contains("refused"))
    }

    @Test func anUnresolvableNameIsAResolutionFailure() async throws {
        let error = await #expect(throws: NetError.self) {
            _ = try await OutboundConnection.connect(host: "no-such-host.invalid", port: 25,
                                                     options: ConnectOptions(timeout: .seconds(5)))
        }
        guard case .resolutionFailed(let host, _) = error else {
            Issue.record("not a resolution failure: \(String(describing: error))")
            return
        }
        #expect(host == "no-such-host.invalid")
    }
}

/// Addresses an admission rule was asked about (it runs on the connection's queue).
private final class SeenAddresses: @unchecked Sendable {
    private let lock = NSLock()
    private var addresses: [PeerAddress] = []

    func add(_ address: PeerAddress) { lock.withLock { addresses.append(address) } }
    var all: [PeerAddress] { lock.withLock { addresses } }
}

/// A listening socket on 127.0.0.1 (or ::1) and a free port, closed when released.
final class LoopbackListener {
    let descriptor: Int32
    let port: UInt16

    init(ipv6: Bool = false) throws {
        let descriptor = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var storage = sockaddr_storage()
        var length: socklen_t
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_addr = in6addr_loopback
            withUnsafeBytes(of: &address) { source in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) }
            }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            withUnsafeBytes(of: &address) { source in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) }
            }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        }
        let bound = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 8) == 0
                    && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw NetError.ioFailed("cannot listen") }
        // sin_port and sin6_port sit at the same offset.
        port = withUnsafeBytes(of: &storage) { UInt16(bigEndian: $0.load(fromByteOffset: 2, as: UInt16.self)) }
    }

    func accept() throws -> Int32 {
        let accepted = Glibc.accept(descriptor, nil, nil)
        guard accepted >= 0 else { throw NetError.ioFailed("cannot accept") }
        return accepted
    }

    deinit { close(descriptor) }
}
