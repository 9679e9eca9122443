import Domain
import HTTPServer

/// `limit` and `cursor` of a list request. `limit` defaults to 20 and must
/// be 1…100 (else 422 naming `limit`); the cursor is opaque and passed on.
public struct PageRequest: Sendable, Equatable {
    public static let defaultLimit = 20
    public static let maxLimit = 100

    public let limit: Int
    public let cursor: String?

    public init(limit: Int = PageRequest.defaultLimit, cursor: String? = nil) {
        self.limit = limit
        self.cursor = cursor
    }

    public static func from(_ request: HTTPRequest) throws -> PageRequest {
        var limit = defaultLimit
        if let text = request.query["limit"] {
            guard let value = Int(text), (1...maxLimit).contains(value) else {
                throw ValidationError([
                    FieldError(field: "limit", code: .outOfRange, message: "limit must be an integer from 1 to \(maxLimit).")
                ]).problem
            }
            limit = value
        }
        let cursor = request.query["cursor"].flatMap { $0.isEmpty ? nil : $0 }
        return PageRequest(limit: limit, cursor: cursor)
    }
}
