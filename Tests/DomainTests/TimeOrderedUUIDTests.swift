import FoundationEssentials
import Testing
@testable import Domain

/// Version-7 ids (RFC 9562): what the order, checkout and payment ids are
/// made with, so that new rows go to the right-most leaf of the indexes
/// keyed by them.
@Suite struct TimeOrderedUUIDTests {
    @Test func theFirst48BitsAreTheMillisecondsThenVersion7AndTheRFCVariant() {
        let milliseconds: Int64 = 0x0192_3456_789A
        let id = TimeOrderedUUID.make(millisecondsSince1970: milliseconds)
        let text = UUIDText.format(id)
        #expect(text.hasPrefix("01923456-789a-7"))
        let bytes = withUnsafeBytes(of: id.uuid) { Array($0) }
        #expect(bytes[6] >> 4 == 7)
        #expect(bytes[8] >> 6 == 0b10)
        #expect(UUIDText.parse(text) == id)
    }

    @Test func idsOfLaterMillisecondsSortAfterAsText() {
        // The text is what the tables key them by.
        let start: Int64 = 1_795_000_000_000
        let texts = (0..<200).map { UUIDText.format(TimeOrderedUUID.make(millisecondsSince1970: start + Int64($0))) }
        #expect(texts == texts.sorted())
        // Random (version 4) ids of the same run would almost never be.
        let random = (0..<200).map { _ in UUIDText.format(UUID()) }
        #expect(random != random.sorted())
    }

    @Test func idsOfOneMillisecondDifferInTheirRandomBits() {
        let ids = (0..<1_000).map { _ in TimeOrderedUUID.make(millisecondsSince1970: 1_795_000_000_000) }
        #expect(Set(ids).count == 1_000)
        #expect(Set(ids.map { UUIDText.format($0).prefix(13) }).count == 1)
    }

    @Test func timesOutsideTheFieldAreClampedNotWrappedIntoTheVersion() {
        for milliseconds in [Int64.min, -1, 0] {
            #expect(UUIDText.format(TimeOrderedUUID.make(millisecondsSince1970: milliseconds)).hasPrefix("00000000-0000-7"))
        }
        for milliseconds in [Int64(1) << 48, Int64.max] {
            #expect(UUIDText.format(TimeOrderedUUID.make(millisecondsSince1970: milliseconds)).hasPrefix("ffffffff-ffff-7"))
        }
    }

    @Test func anIdForNowCarriesTheWallClock() {
        let bytes = withUnsafeBytes(of: TimeOrderedUUID.make().uuid) { Array($0) }
        let milliseconds = bytes[0..<6].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        // Within a minute of the clock read just after: what the field
        // holds, not how long anything took.
        #expect(abs(milliseconds - Int64(Date().timeIntervalSince1970 * 1000)) < 60_000)
    }
}
