/// A request method token (RFC 9110 section 9). Methods are case-sensitive;
/// anything that is a valid token is representable; `isStandard` tells the
/// methods RFC 9110 defines from the rest (501).
public struct HTTPMethod: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let get = HTTPMethod("GET")
    public static let head = HTTPMethod("HEAD")
    public static let post = HTTPMethod("POST")
    public static let put = HTTPMethod("PUT")
    public static let patch = HTTPMethod("PATCH")
    public static let delete = HTTPMethod("DELETE")
    public static let options = HTTPMethod("OPTIONS")

    /// Whether this is a registered standard method (RFC 9110, QUERY). Routing decides the rest:
    /// a standard method a resource does not serve (TRACE, CONNECT, or PUT on
    /// a read-only path) is 405 with `Allow`; any other token is 501, since
    /// no resource on this server could ever serve it.
    public var isStandard: Bool {
        switch rawValue {
        // QUERY: the IANA-registered safe method with a body (httpbis).
        case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT", "QUERY": return true
        default: return false
        }
    }

    public var description: String { rawValue }

    /// Interns the common methods so parsing them allocates nothing.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> HTTPMethod {
        switch bytes.count {
        case 3 where bytes.elementsEqual("GET".utf8): return .get
        case 3 where bytes.elementsEqual("PUT".utf8): return .put
        case 4 where bytes.elementsEqual("HEAD".utf8): return .head
        case 4 where bytes.elementsEqual("POST".utf8): return .post
        case 5 where bytes.elementsEqual("PATCH".utf8): return .patch
        case 6 where bytes.elementsEqual("DELETE".utf8): return .delete
        case 7 where bytes.elementsEqual("OPTIONS".utf8): return .options
        default: return HTTPMethod(String(decoding: bytes, as: UTF8.self))
        }
    }
}
