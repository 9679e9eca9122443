import FoundationEssentials

/// The erasure of a deleted account's personal data outside the users
/// client (its cart, its wishlist, its orders' shipping addresses), queued
/// as an `account.erase` job in the commit that deletes the account: the
/// request does the erasure at once, and the job does it again later if
/// the process died between the two (each step is idempotent).
public struct AccountErasure: Sendable, Hashable, Codable {
    public static let kind = JobKind("account.erase", maxAttempts: 50)

    public let userID: UserID

    public init(userID: UserID) {
        self.userID = userID
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
    }

    /// Due `delay` after the deletion: the request's own erasure comes first.
    public func job(at now: Int64, delayMilliseconds: Int64 = 60_000) throws -> JobRequest {
        JobRequest(kind: Self.kind, payload: Array(try JSONEncoder().encode(self)),
                   uniqueKey: userID.description, runAt: now + delayMilliseconds, enqueuedAt: now)
    }

    public init(payload: [UInt8]) throws {
        self = try JSONDecoder().decode(AccountErasure.self, from: Data(payload))
    }
}
