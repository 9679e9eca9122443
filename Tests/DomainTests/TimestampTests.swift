import Domain
import Foundation
import Testing
import TestSupport

@Suite struct TimestampTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (1_795_000_000_123, "2026-11-18T11:06:40.123Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
        (-62_167_219_200_000, "0000-01-01T00:00:00.000Z"),
        (-61_000_000_000_001, "0036-12-26T11:33:19.999Z"),
        (1_009_843_200_010, "2002-01-01T00:00:00.010Z"),
    ])
    func formatsAndParsesRFC3339(milliseconds: Int64, text: String) {
        let stamp = Timestamp(millisecondsSince1970: milliseconds)
        #expect(stamp.rfc3339 == text)
        #expect(Timestamp(rfc3339: text) == stamp)
    }

    /// Every field at its width, over instants spread across the whole
    /// range (a fixed seed): the text reads back to the same instant and
    /// agrees with Foundation's calendar on the fields.
    @Test func formatsEveryInstantOfTheRangeAtFullWidth() {
        var generator = SplitMix64(seed: 0x5EED)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for _ in 0..<5_000 {
            let span = UInt64(Timestamp.maximum - Timestamp.minimum + 1)
            let stamp = Timestamp(millisecondsSince1970: Timestamp.minimum + Int64(generator.next() % span))
            let text = stamp.rfc3339
            #expect(text.utf8.count == 24)
            #expect(Timestamp(rfc3339: text) == stamp)
            let fields = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: stamp.date)
            let expected = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", fields.year!, fields.month!, fields.day!,
                                  fields.hour!, fields.minute!, fields.second!)
            // Years before 1583 are proleptic Gregorian here and Julian in Foundation's calendar.
            if fields.year! >= 1583 { #expect(text.hasPrefix(expected), "\(stamp.millisecondsSince1970)") }
        }
    }

    @Test func parsesOffsetsFractionsAndLowerCase() {
        let utc = Timestamp(rfc3339: "2026-11-22T08:30:00Z")
        #expect(utc?.millisecondsSince1970 == 1_795_336_200_000)
        #expect(Timestamp(rfc3339: "2026-11-22T10:30:00+02:00") == utc)
        #expect(Timestamp(rfc3339: "2026-11-22T03:00:00-05:30") == utc)
        #expect(Timestamp(rfc3339: "2026-11-22t08:30:00z") == utc)
        #expect(Timestamp(rfc3339: "2026-11-22T08:30:00.5Z")?.millisecondsSince1970 == 1_795_336_200_500)
        #expect(Timestamp(rfc3339: "2026-11-22T08:30:00.123456789Z")?.millisecondsSince1970 == 1_795_336_200_123)
    }

    @Test(arguments: [
        "", "2026-11-22", "2026-11-22 08:30:00Z", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z",
        "2026-11-31T00:00:00Z", "2026-11-22T24:00:00Z", "2026-11-22T08:60:00Z", "2026-11-22T08:30:60Z",
        "2026-11-22T08:30:00", "2026-11-22T08:30:00.Z", "2026-11-22T08:30:00+2:00", "2026-11-22T08:30:00Zjunk",
        "2026-11-22T08:30:00+02:00:00", "２026-11-22T08:30:00Z",
    ])
    func refusesMalformedText(text: String) {
        #expect(Timestamp(rfc3339: text) == nil)
    }

    @Test func truncatesDatesToMilliseconds() {
        let date = Date(timeIntervalSince1970: 1.2349)
        #expect(Timestamp(date).millisecondsSince1970 == 1234)
        #expect(Timestamp(Date(timeIntervalSince1970: -0.0005)).millisecondsSince1970 == -1)
        #expect(Timestamp(millisecondsSince1970: 1500).date == Date(timeIntervalSince1970: 1.5))
        #expect(Timestamp(millisecondsSince1970: 1) < Timestamp(millisecondsSince1970: 2))
        #expect(Timestamp(millisecondsSince1970: .max).rfc3339 == "9999-12-31T23:59:59.999Z")
        #expect(Timestamp(millisecondsSince1970: .min).rfc3339 == "0000-01-01T00:00:00.000Z")
        #expect(Timestamp(Date(timeIntervalSince1970: 1e15)).millisecondsSince1970 == Timestamp.maximum)
        #expect(Timestamp(Date(timeIntervalSince1970: -.infinity)).millisecondsSince1970 == Timestamp.minimum)
        #expect(Timestamp(Date(timeIntervalSince1970: .nan)).millisecondsSince1970 == 0)
    }

    @Test func codesAsRFC3339String() throws {
        let (decoded, json) = try roundTrip([t0])
        #expect(decoded == [t0])
        #expect(json == #"["2026-11-18T11:06:40.000Z"]"#)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([Timestamp].self, from: Data("[1]".utf8)) }
    }
}
