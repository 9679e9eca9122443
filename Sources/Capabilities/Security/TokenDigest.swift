import CSodium

/// SHA-256 digests for storing bearer tokens: the database keeps only
/// `TokenDigest.sha256Hex(token)`, so a leaked table yields no usable tokens.
/// (Tokens carry 256 random bits, so a fast unsalted hash suffices; passwords
/// use `PasswordHasher`.)
public enum TokenDigest {
    /// The 32-byte SHA-256 of `bytes` (libsodium `crypto_hash_sha256`).
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        _ = Sodium.isReady
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_bytes()))
        // One spare byte keeps the buffer non-empty (a valid pointer) for empty input.
        let input = bytes + [0]
        input.withUnsafeBufferPointer {
            _ = crypto_hash_sha256(&digest, $0.baseAddress!, UInt64(bytes.count))
        }
        return digest
    }

    /// The SHA-256 of the UTF-8 of `text`.
    public static func sha256(_ text: String) -> [UInt8] {
        sha256(Array(text.utf8))
    }

    /// The SHA-256 of the UTF-8 of `text`, as 64 lower-case hex characters.
    public static func sha256Hex(_ text: String) -> String {
        Hex.encode(sha256(text))
    }

    /// Compares two byte strings in time independent of where they differ.
    public static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in sodium_memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
        }
    }
}
