import FoundationEssentials
import Testing
@testable import Domain

/// Version-4 ids from `getrandom(2)` (product, user and session ids, and
/// the random part of the time-ordered ones).
@Suite struct RandomUUIDTests {
    @Test func theBitsAreTheGeneratorsWithVersion4AndTheRFCVariant() {
        let id = RandomUUID.make(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210)
        // Byte 6's high nibble becomes 4, byte 8's top two bits 10; the rest as given.
        #expect(UUIDText.format(id) == "01234567-89ab-4def-bedc-ba9876543210")
        let ones = RandomUUID.make(high: .max, low: .max)
        #expect(UUIDText.format(ones) == "ffffffff-ffff-4fff-bfff-ffffffffffff")
        let zeros = RandomUUID.make(high: 0, low: 0)
        #expect(UUIDText.format(zeros) == "00000000-0000-4000-8000-000000000000")
    }

    @Test func newIdsAreVersion4AndDistinct() {
        let ids = (0..<2_000).map { _ in RandomUUID.make() }
        #expect(Set(ids).count == 2_000)
        for id in ids.prefix(50) {
            let bytes = withUnsafeBytes(of: id.uuid) { Array($0) }
            #expect(bytes[6] >> 4 == 4)
            #expect(bytes[8] >> 6 == 0b10)
            // Foundation reads its own text the same way.
            #expect(UUID(uuidString: id.uuidString) == id)
        }
        // 122 random bits: every byte position takes more than one value over 2,000 ids.
        for position in 0..<16 {
            let values = Set(ids.map { withUnsafeBytes(of: $0.uuid) { $0[position] } })
            #expect(values.count > 1, "byte \(position) never changed")
        }
    }
}
