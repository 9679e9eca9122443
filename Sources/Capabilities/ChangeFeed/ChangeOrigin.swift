/// A storage instance's name in the outbox's `origin` column, made once per
/// configuration (so a capability re-created after a failure keeps it).
enum ChangeOrigin {
    static func make() -> String {
        let high = UInt64.random(in: .min ... .max)
        let low = UInt64.random(in: .min ... .max)
        return String(high, radix: 16) + String(low, radix: 16)
    }
}
