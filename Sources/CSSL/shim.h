#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

// OpenSSL spells these as macros over SSL_ctrl/SSL_CTX_ctrl, which Swift
// does not import; each is the one call the macro expands to.

/// SNI (RFC 6066 section 3): the host name sent in the ClientHello.
static inline int axiom_ssl_set_server_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// The lowest protocol version the context will negotiate.
static inline int axiom_ssl_ctx_set_min_version(SSL_CTX *context, int version) {
    return (int)SSL_CTX_set_min_proto_version(context, version);
}
