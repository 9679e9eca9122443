import HTTPServer

/// Which routes get validators, which caching, and which are exempt from
/// the rate limit: attached in one place, by pattern, so handlers hold none
/// of it (the route groups can take these over when they own their policies).
enum RoutePolicies {
    /// Account data is never stored by a cache (RFC 9111 5.2.2.5): it
    /// answers to a bearer token, and a shared cache must not keep it.
    static let accountData = RoutePolicy(cacheControl: "no-store")
    /// Account reads that a client may still revalidate with If-None-Match.
    static let accountRead = RoutePolicy(entityTag: true, cacheControl: "no-store")
    /// Probes and scrapes: a monitor polling often must never be refused.
    static let probe = RoutePolicy(rateLimited: false)

    static func attach(to router: inout Router, catalogMaxAge: Int) {
        let catalog = RoutePolicy(entityTag: true,
                                  cacheControl: catalogMaxAge > 0 ? "max-age=\(catalogMaxAge)" : "no-cache")
        let policies: [(HTTPMethod, String, RoutePolicy)] = [
            (.get, "/products", catalog), (.get, "/products/{id}", catalog),
            (.get, "/users/me", accountRead), (.get, "/cart", accountRead), (.get, "/orders/{id}", accountRead),
            (.patch, "/users/me", accountData), (.get, "/orders", accountData),
            (.put, "/cart/items/{product_id}", accountData), (.delete, "/cart/items/{product_id}", accountData),
            (.delete, "/cart", accountData), (.post, "/checkout", accountData),
            (.post, "/orders/{id}/cancel", accountData), (.patch, "/orders/{id}", accountData),
            (.post, "/orders/{id}/payment", accountData), (.post, "/events/tickets", accountData),
            (.post, "/users", accountData), (.post, "/sessions", accountData),
            (.delete, "/sessions/current", accountData), (.get, "/users", accountData),
            (.get, "/users/{id}", accountData), (.patch, "/users/{id}", accountData),
            (.get, "/health", probe), (.get, "/ready", probe), (.get, "/metrics", probe),
        ]
        for (method, pattern, policy) in policies
        where router.routes.contains(where: { $0.method == method && $0.pattern == pattern }) {
            router.attach(policy, to: method, pattern)
        }
    }
}
