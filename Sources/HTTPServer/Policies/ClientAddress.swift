/// The address a request comes from, the one notion of "the client" for
/// every per-client rule (rate limits, the sign-in throttle, the access
/// log): the peer's, unless the peer is a trusted proxy, then the nearest
/// untrusted address in `X-Forwarded-For` (read from the right: entries to
/// the left of the first untrusted one could be made up by the client).
/// Resolved once per request head (`ExchangePolicies.begin`) and handed to
/// handlers as `HTTPRequest.clientAddress`. The per-address connection cap
/// runs before any header arrives, so it can only see the peer; trusted
/// proxies are exempt from it for that reason.
enum ClientAddress {
    static func resolve(peer: String, headers: HTTPFields, trustedProxies: Set<String>) -> String {
        // Most deployments list no proxy: no hash of the peer per request then.
        guard !trustedProxies.isEmpty, trustedProxies.contains(peer) else { return peer }
        let hops = headers.values(for: "x-forwarded-for")
            .flatMap { $0.split(separator: ",") }
            .map { String($0.trimmingSpaces) }
        for hop in hops.reversed() where !hop.isEmpty && !trustedProxies.contains(hop) {
            return hop
        }
        return peer
    }
}
