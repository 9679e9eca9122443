import HTTPServer

/// The bearer token of a request (RFC 6750 section 2.1). A missing or
/// malformed `Authorization` field is a 401 carrying `WWW-Authenticate:
/// Bearer`, so clients know which scheme to use.
public enum BearerToken {
    public static func from(_ request: HTTPRequest) throws(HTTPError) -> String {
        guard let value = request.headers["authorization"] else {
            throw unauthorized("This resource needs a bearer token: Authorization: Bearer <token>.", error: nil)
        }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw unauthorized("The Authorization field must use the Bearer scheme.", error: "invalid_request")
        }
        let token = parts[1].trimmingCharacters()
        // b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
        guard !token.isEmpty, token.utf8.count <= 512, token.utf8.allSatisfy(isTokenCharacter) else {
            throw unauthorized("The bearer token is malformed.", error: "invalid_token")
        }
        return token
    }

    /// The 401 for a token that is well formed but not (or no longer) valid.
    public static func invalidToken() -> HTTPError {
        unauthorized("The bearer token is unknown, expired or revoked.", error: "invalid_token")
    }

    static func unauthorized(_ detail: String, error: String?) -> HTTPError {
        var challenge = "Bearer realm=\"axiom\""
        if let error { challenge += ", error=\"\(error)\"" }
        return HTTPError(.unauthorized, code: "unauthorized", detail: detail, headers: ["WWW-Authenticate": challenge])
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
             UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }
}

extension Substring {
    func trimmingCharacters() -> String {
        var slice = self
        while slice.first == " " || slice.first == "\t" { slice.removeFirst() }
        while slice.last == " " || slice.last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
