/// The listener a route group is served on.
public enum RouteListener: Sendable {
    /// The public address.
    case main
    /// `ops_port` when configured (metrics, introspection), else the public address.
    case operations
}
