/// The protocol version of a request. Only 1.0 and 1.1 are served; a
/// well-formed `HTTP/x.y` with other digits is answered 505.
public enum HTTPVersion: Sendable, Equatable {
    case http1_0
    case http1_1

    var statusLinePrefix: StaticString {
        switch self {
        case .http1_0: return "HTTP/1.0 "
        case .http1_1: return "HTTP/1.1 "
        }
    }
}
