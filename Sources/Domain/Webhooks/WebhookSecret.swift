/// An endpoint's signing secret as shown to an admin, once: when the
/// endpoint is made and when its secret is rotated. `whsec_` and the
/// base64 of 32 random bytes (Standard Webhooks: 24 to 64 bytes).
/// During a rotation's overlap the previous secret still signs, beside
/// this one, until `previousExpiresAt`.
public struct WebhookSecret: Hashable, Sendable {
    public static let prefix = "whsec_"

    public let secret: String
    public let previousExpiresAt: Timestamp?

    public init(secret: String, previousExpiresAt: Timestamp?) {
        self.secret = secret
        self.previousExpiresAt = previousExpiresAt
    }
}
