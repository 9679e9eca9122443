/// The protocol version of a request. Only 1.0 and 1.1 are served: a
/// request in `HTTP/1.x` with x above 1 is served as 1.1, any other
/// well-formed `HTTP/x.y` is answered 505.
public enum HTTPVersion: Sendable, Equatable {
    case http1_0
    case http1_1
}
