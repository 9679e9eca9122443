import HTTPServer

/// The answer to an `OutboundHTTPRequest`, whatever its status: a 3xx is
/// not followed, a 4xx or 5xx is a response like any other.
public struct OutboundHTTPResponse: Sendable {
    public let status: Int
    /// Names lower-cased, in the order received.
    public let headers: [(name: String, value: String)]
    /// At most `maxResponseBytes` of the body.
    public let body: [UInt8]
    /// The body went on past `maxResponseBytes` (and the connection was closed).
    public let bodyTruncated: Bool
    /// The request went over a kept-alive connection of an earlier one.
    public let reusedConnection: Bool

    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8], bodyTruncated: Bool,
                reusedConnection: Bool) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyTruncated = bodyTruncated
        self.reusedConnection = reusedConnection
    }

    init(_ received: ReceivedResponse, reusedConnection: Bool) {
        self.init(status: received.status, headers: received.headers.map { ($0.name, $0.value) }, body: received.body,
                  bodyTruncated: received.bodyTruncated, reusedConnection: reusedConnection)
    }

    /// The first value of the field `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}
