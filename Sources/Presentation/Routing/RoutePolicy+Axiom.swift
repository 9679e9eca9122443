import HTTPServer

/// The policies Axiom's route groups state beside their routes (RFC-001
/// 2.4: the group is where policies attach), so a handler holds none of it.
extension RoutePolicy {
    /// Account data is never stored by a cache (RFC 9111 5.2.2.5): it
    /// answers to a bearer token, and a shared cache must not keep it.
    public static let accountData = RoutePolicy(cacheControl: "no-store")
    /// Account reads that a client may still revalidate with If-None-Match.
    public static let accountRead = RoutePolicy(entityTag: true, cacheControl: "no-store")
    /// Probes and scrapes: a monitor polling often must never be refused.
    public static let probe = RoutePolicy(rateLimited: false)

    /// The public catalogue: revalidated on every use (`no-cache`), or
    /// fresh for `maxAge` seconds when `catalog_max_age` sets one.
    public static func catalog(maxAge: Int) -> RoutePolicy {
        RoutePolicy(entityTag: true, cacheControl: maxAge > 0 ? "max-age=\(maxAge)" : "no-cache")
    }
}
