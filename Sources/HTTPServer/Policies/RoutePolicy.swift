/// What the server does around one route's handler, beyond calling it:
/// attached to routes at start-up (`Router.attach`), so a route group can
/// state its caching and limits without code in its handlers.
public struct RoutePolicy: Sendable, Equatable {
    /// Compute a strong `ETag` from the representation when the handler set
    /// none, and answer a matching `If-None-Match` with 304.
    public var entityTag: Bool
    /// `Cache-Control` for its 2xx and 304 responses (a handler's own wins).
    public var cacheControl: String?
    /// Whether the server's rate limit applies (probes are exempt).
    public var rateLimited: Bool

    public init(entityTag: Bool = false, cacheControl: String? = nil, rateLimited: Bool = true) {
        self.entityTag = entityTag
        self.cacheControl = cacheControl
        self.rateLimited = rateLimited
    }

    public static let standard = RoutePolicy()
}
