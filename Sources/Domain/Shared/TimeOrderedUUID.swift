import FoundationEssentials

/// UUIDs of version 7 (RFC 9562, 5.7): the first 48 bits are the Unix time
/// in milliseconds, the rest random (74 bits, from a version-4 UUID). Ids
/// made one after another sort after one another, as bytes and as the
/// lower-case text every table keys them by.
///
/// Why: with random (version-4) ids each new order, checkout and payment
/// lands on a random leaf of every index keyed by its id, so every
/// checkout of a group commit dirties pages of its own, and the single
/// writer writes them all to the WAL and again at the checkpoint.
/// Time-ordered ids go to the right-most leaf, which the commit's other
/// checkouts share (`docs/working-sets.md` has the measurements).
/// The clock is the process's wall clock, not an injected one: the time
/// orders storage, it means nothing to the domain.
///
/// An id still says nothing guessable about another one: 74 random bits,
/// and every read is checked against its owner. What it does say is when
/// it was made, to the millisecond, which the orders and payments it names
/// show anyway (`created_at`).
public enum TimeOrderedUUID {
    /// A new id for now.
    public static func make() -> UUID {
        make(millisecondsSince1970: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }

    /// A new id for `milliseconds` since 1970, clamped to the field's 0 …
    /// 2^48 - 1 (the year 10889).
    public static func make(millisecondsSince1970 milliseconds: Int64) -> UUID {
        let time = min(UInt64(clamping: milliseconds), 0xFFFF_FFFF_FFFF)
        var bytes = RandomUUID.make().uuid
        bytes.0 = UInt8(truncatingIfNeeded: time >> 40)
        bytes.1 = UInt8(truncatingIfNeeded: time >> 32)
        bytes.2 = UInt8(truncatingIfNeeded: time >> 24)
        bytes.3 = UInt8(truncatingIfNeeded: time >> 16)
        bytes.4 = UInt8(truncatingIfNeeded: time >> 8)
        bytes.5 = UInt8(truncatingIfNeeded: time)
        bytes.6 = (bytes.6 & 0x0F) | 0x70  // version 7
        bytes.8 = (bytes.8 & 0x3F) | 0x80  // the RFC's variant
        return UUID(uuid: bytes)
    }
}
