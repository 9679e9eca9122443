import CSodium

/// HMAC-SHA256 (RFC 2104 over SHA-256, libsodium `crypto_auth_hmacsha256`)
/// for checking signed notifications: a payment provider signs each webhook
/// with a secret shared with the shop. Keys of any length (the streaming
/// API; the one-shot `crypto_auth_hmacsha256` takes exactly 32 bytes, and a
/// provider's secret is whatever text it issued).
public final class MessageAuthenticator: Sendable {
    /// Bytes of an HMAC-SHA256.
    public static let macBytes = Int(crypto_auth_hmacsha256_bytes())

    public init() throws {
        try Sodium.ensureReady()
    }

    public var isAvailable: Bool { Sodium.isReady }

    public func checkAvailability() async -> Bool { Sodium.isReady }

    /// The HMAC-SHA256 of `message` under `key`.
    public func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var state = crypto_auth_hmacsha256_state()
        var mac = [UInt8](repeating: 0, count: Self.macBytes)
        // One spare byte each keeps the buffers non-empty (a valid pointer)
        // for an empty key or message.
        let keyBuffer = key + [0], messageBuffer = message + [0]
        keyBuffer.withUnsafeBufferPointer { keyBytes in
            _ = crypto_auth_hmacsha256_init(&state, keyBytes.baseAddress!, key.count)
        }
        messageBuffer.withUnsafeBufferPointer { messageBytes in
            _ = crypto_auth_hmacsha256_update(&state, messageBytes.baseAddress!, UInt64(message.count))
        }
        _ = crypto_auth_hmacsha256_final(&state, &mac)
        return mac
    }

    /// Whether `mac` is the HMAC-SHA256 of `message` under `key`, compared
    /// in time independent of where they differ (`sodium_memcmp`), so a
    /// forger learns nothing from how long a refusal took.
    public func verify(_ mac: [UInt8], key: [UInt8], message: [UInt8]) -> Bool {
        TokenDigest.constantTimeEquals(hmacSHA256(key: key, message: message), mac)
    }
}
