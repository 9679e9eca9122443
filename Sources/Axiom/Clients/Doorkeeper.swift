/// The keys a full `WorkingSet` was asked to keep once recently: a Bloom
/// filter (two probes into a bit array) that forgets everything after
/// `window` notes. `WorkingSet.admit` lets a key displace a held entry only
/// on its second arrival within the window, as TinyLFU's "doorkeeper" does,
/// so a key read once and never again (a crawler walking the catalogue, or
/// the uniformly random ids of a load test over 1,000,000 products) costs a
/// note instead of an insertion, an eviction and the evicted key's next
/// miss.
///
/// A false positive admits a key on its first arrival, as without the
/// filter; its rate stays under 3 % with at least 16 bits per note of the
/// window and two probes, (1 − e^(−2n/m))² at n = m/16.
@usableFromInline
struct Doorkeeper: Sendable {
    @usableFromInline var bits: [UInt64]
    @usableFromInline let mask: Int
    @usableFromInline let window: Int
    @usableFromInline var noted = 0

    /// `window`: notes kept before the filter starts over (at least 1).
    @inlinable
    init(window: Int) {
        self.window = max(1, window)
        // A power of two of at least 16 bits per note, so a probe is a mask.
        var size = 64
        while size < 16 * self.window { size <<= 1 }
        bits = Array(repeating: 0, count: size / 64)
        mask = size - 1
    }

    /// Notes the key whose `hashValue` is `keyHash`; true when it was
    /// (probably) noted already in this window. A new note that finds the
    /// window full starts the filter over first, so the key just noted is
    /// always remembered (starting over after it would forget it at once,
    /// and its second arrival, however soon, would be a first again).
    @inlinable
    mutating func noteAgain(_ keyHash: Int) -> Bool {
        let hash = UInt64(bitPattern: Int64(keyHash))
        // Two probes from the hash's halves (Kirsch–Mitzenmacher).
        let first = Int(truncatingIfNeeded: hash) & mask
        let second = (first &+ Int(truncatingIfNeeded: (hash >> 32) | 1)) & mask
        if isSet(first) && isSet(second) { return true }
        if noted >= window { reset() }
        set(first)
        set(second)
        noted += 1
        return false
    }

    @inlinable
    func isSet(_ bit: Int) -> Bool { bits[bit >> 6] & (1 << UInt64(bit & 63)) != 0 }

    @inlinable
    mutating func set(_ bit: Int) { bits[bit >> 6] |= 1 << UInt64(bit & 63) }

    @inlinable
    mutating func reset() {
        for index in bits.indices { bits[index] = 0 }
        noted = 0
    }
}
