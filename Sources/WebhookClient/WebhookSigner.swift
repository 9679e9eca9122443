import Capabilities
import Domain

/// Standard Webhooks' signatures: `v1,` and the base64 of the HMAC-SHA256
/// of `<webhook-id>.<webhook-timestamp>.<body>` under the secret's key
/// (the base64 after `whsec_`). During a rotation's overlap both the new
/// and the previous secret sign, space-separated, and a receiver accepts
/// either (`webhook-signature: v1,<new> v1,<old>`).
struct WebhookSigner {
    let authenticator: MessageAuthenticator

    /// A new secret: `whsec_` and the base64 of 32 random bytes.
    static func newSecret(_ random: SecureRandom) -> String {
        WebhookSecret.prefix + Base64.encode(random.bytes(32))
    }

    /// The key a secret signs with; nil for one that is not `whsec_` and base64.
    static func key(_ secret: String) -> [UInt8]? {
        guard secret.hasPrefix(WebhookSecret.prefix) else { return nil }
        return Base64.decode(secret.dropFirst(WebhookSecret.prefix.count))
    }

    /// The `webhook-signature` value for `secrets` (the current first).
    func header(id: String, timestamp: Int64, body: [UInt8], secrets: [String]) -> String {
        let message = Array("\(id).\(timestamp).".utf8) + body
        return secrets.compactMap(Self.key).map { key in
            "v1," + Base64.encode(authenticator.hmacSHA256(key: key, message: message))
        }.joined(separator: " ")
    }
}
