import HTTPServer

/// The bearer token that guards the operations routes (`GET /metrics`)
/// when `metrics_token` is set, since the metrics show the version,
/// sign-in and checkout counts and the live sessions. The token
/// is compared in constant time, so response timing does not reveal how
/// much of a guess was right.
public struct OperationsToken: Sendable {
    private let expected: [UInt8]

    public init(_ token: String) {
        expected = Array(token.utf8)
    }

    /// Throws the 401 unless the request carries exactly this token.
    public func check(_ request: HTTPRequest) throws(HTTPError) {
        let presented = Array(try BearerToken.from(request).utf8)
        guard Self.constantTimeEquals(presented, expected) else {
            throw BearerToken.unauthorized("The bearer token is not the operations token.", error: "invalid_token")
        }
    }

    /// Equal bytes, in time that depends on the lengths only.
    static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        var difference: UInt8 = lhs.count == rhs.count ? 0 : 1
        for index in 0..<max(lhs.count, rhs.count) {
            let left = index < lhs.count ? lhs[index] : 0
            let right = index < rhs.count ? rhs[index] : 0
            difference |= left ^ right
        }
        return difference == 0
    }
}
