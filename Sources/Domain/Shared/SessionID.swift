import FoundationEssentials

/// Identity of a login session (the row id, not the bearer token: the token
/// is a secret and is stored only as a hash).
public struct SessionID: UUIDIdentifier {
    public let rawValue: UUID

    public init(_ rawValue: UUID) {
        self.rawValue = rawValue
    }
}
