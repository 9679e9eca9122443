import CSSL

/// The TLS settings every outbound connection of one client shares (an
/// OpenSSL `SSL_CTX`): TLS 1.2 at least (1.3 when the peer has it), the
/// peer's chain verified against the system's CA store or the given CA
/// file. Immutable once made, so connections on any thread may use it.
public final class TLSClientContext: @unchecked Sendable {
    let context: OpaquePointer

    /// - Parameter caFile: PEM file of the CA certificates to trust instead
    ///   of the system's store (a private CA, a test's CA).
    public init(caFile: String? = nil) throws(NetError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw .tlsFailed("cannot create a TLS context: \(TLSErrors.drain())")
        }
        self.context = context
        guard axiom_ssl_ctx_set_min_version(context, TLS1_2_VERSION) == 1 else {
            throw .tlsFailed("cannot require TLS 1.2: \(TLSErrors.drain())")
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        if let caFile {
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                throw .tlsFailed("cannot load CA file \(caFile): \(TLSErrors.drain())")
            }
        } else {
            guard SSL_CTX_set_default_verify_paths(context) == 1 else {
                throw .tlsFailed("cannot load the system CA store: \(TLSErrors.drain())")
            }
        }
    }

    deinit { SSL_CTX_free(context) }
}
