import CSSL
import Glibc

/// TLS over a connected `StreamSocket`: the handshake with SNI and host-name
/// verification, then reads and writes. The socket stays non-blocking;
/// whenever OpenSSL wants to read or write, the stream polls for it within
/// the deadline. Used only on its connection's queue.
final class TLSStream {
    private let ssl: OpaquePointer
    private let socket: StreamSocket
    /// The context must outlive the session made from it.
    private let context: TLSClientContext

    /// Handshakes with the peer and verifies its certificate for `host` (a
    /// DNS name, or an IP literal checked against the certificate's IP
    /// addresses). A refused certificate throws `tlsFailed` with the reason
    /// (OpenSSL's verify result: host name mismatch, unknown issuer, expiry).
    init(over socket: StreamSocket, host: String, context: TLSClientContext, by deadline: Deadline) throws(NetError) {
        ERR_clear_error()
        guard let ssl = SSL_new(context.context) else { throw .tlsFailed("cannot create a session: \(TLSErrors.drain())") }
        self.ssl = ssl
        self.socket = socket
        self.context = context
        SSL_set_fd(ssl, socket.descriptor)
        if IPLiteral.isIPAddress(host) {
            // RFC 6066 section 3: no IP literal in the server name.
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1 else {
                throw .tlsFailed("cannot verify the address \(host): \(TLSErrors.drain())")
            }
        } else {
            // RFC 6125 6.4.3: a wildcard stands for a whole label only.
            SSL_set_hostflags(ssl, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
            guard axiom_ssl_set_server_name(ssl, host) == 1, SSL_set1_host(ssl, host) == 1 else {
                throw .tlsFailed("cannot set the server name \(host): \(TLSErrors.drain())")
            }
        }
        _ = try step("handshake", by: deadline) { SSL_connect(ssl) }
    }

    deinit { SSL_free(ssl) }

    func read(into buffer: UnsafeMutableRawBufferPointer, by deadline: Deadline) throws(NetError) -> Int {
        try step("reading", by: deadline) { [ssl] in SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count)) }
    }

    func write(_ bytes: UnsafeRawBufferPointer, by deadline: Deadline) throws(NetError) {
        var offset = 0
        while offset < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            offset += try step("writing", by: deadline) { [ssl] in
                SSL_write(ssl, rest.baseAddress, Int32(clamping: rest.count))
            }
        }
    }

    /// Sends close_notify without waiting for the peer's.
    func shutdown() {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
    }

    /// Runs one OpenSSL call until it makes progress, polling for whatever
    /// it waits on; returns its positive result.
    private func step(_ what: String, by deadline: Deadline, _ call: () -> Int32) throws(NetError) -> Int {
        while true {
            ERR_clear_error()
            let result = call()
            if result > 0 { return Int(result) }
            let error = SSL_get_error(ssl, result)
            switch error {
            case SSL_ERROR_WANT_READ: try socket.wait(for: Int16(POLLIN), by: deadline, doing: "TLS \(what)")
            case SSL_ERROR_WANT_WRITE: try socket.wait(for: Int16(POLLOUT), by: deadline, doing: "TLS \(what)")
            case SSL_ERROR_ZERO_RETURN: throw .closedByPeer
            default:
                let verified = SSL_get_verify_result(ssl)
                if verified != X509_V_OK {
                    throw .tlsFailed("certificate refused: \(String(cString: X509_verify_cert_error_string(verified)))")
                }
                if error == SSL_ERROR_SYSCALL, ERR_peek_error() == 0 {
                    if result == 0 || errno == ECONNRESET || errno == EPIPE { throw .closedByPeer }
                    throw .ioFailed(StreamSocket.errnoText())
                }
                throw .tlsFailed("\(what) failed: \(TLSErrors.drain())")
            }
        }
    }
}
