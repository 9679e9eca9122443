/// What a checkout request asked for, kept with its `Idempotency-Key`: a
/// key answers only requests that ask for the same (Stripe compares a key's
/// request parameters), so another cart under a used key is refused
/// (`idempotency_key_reused`) instead of answered with the first order.
/// The cart's lines in product order, hashed (64-bit FNV-1a) to a short
/// text; a new checkout parameter joins the hashed text.
public struct CheckoutFingerprint: Hashable, Sendable {
    public let text: String

    public init(lines: [CartLine]) {
        let canonical = lines.sorted { $0.productID.description < $1.productID.description }
            .map { "\($0.productID)*\($0.quantity)" }.joined(separator: ";")
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in canonical.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        text = String(repeating: "0", count: 16 - digits.count) + digits
    }
}
