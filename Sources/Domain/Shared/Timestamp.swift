import Formats
import FoundationEssentials

/// An instant in UTC with millisecond precision, written as RFC 3339
/// (`2026-11-22T08:30:00.000Z`).
///
/// Domain values hold a `Timestamp` rather than a `Date` so that the text
/// form round-trips exactly (a `Date` carries sub-millisecond noise that
/// RFC 3339 text and SQLite integers would lose) and so that JSON encoding
/// does not depend on an encoder's date strategy.
public struct Timestamp: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let millisecondsSince1970: Int64

    /// Clamped to years 0000 through 9999, the range RFC 3339 can write.
    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = min(max(millisecondsSince1970, Self.minimum), Self.maximum)
    }

    /// Truncates `date` to whole milliseconds (toward the past), clamped to
    /// the writable range; a NaN date (never produced by a clock) is the epoch.
    public init(_ date: Date) {
        let raw = (date.timeIntervalSince1970 * 1000).rounded(.down)
        let milliseconds = raw.isNaN ? 0 : raw
        self.init(millisecondsSince1970: Int64(milliseconds.clamped(to: Double(Self.minimum) ... Double(Self.maximum))))
    }

    public var date: Date { Date(timeIntervalSince1970: Double(millisecondsSince1970) / 1000) }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    /// 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z.
    public static let minimum: Int64 = -62_167_219_200_000
    public static let maximum: Int64 = 253_402_300_799_999
    private static let millisecondsPerDay: Int64 = 86_400_000

    // MARK: - RFC 3339

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`, always UTC, always three fraction digits.
    public var rfc3339: String {
        let ms = millisecondsSince1970
        let days = ms >= 0 ? ms / Self.millisecondsPerDay : -((-ms + Self.millisecondsPerDay - 1) / Self.millisecondsPerDay)
        let inDay = ms - days * Self.millisecondsPerDay
        let (year, month, day) = CivilCalendar.civil(fromDays: days)
        let seconds = inDay / 1000
        // Written into the string's own 24 bytes (years are 0000-9999, so
        // every field has its width): joining padded pieces made about
        // twenty short strings a timestamp, and every order, payment and
        // stored order document writes some.
        return String(unsafeUninitializedCapacity: 24) { text in
            func digits(_ value: Int64, _ width: Int, at start: Int) {
                var rest = value
                for index in stride(from: start + width - 1, through: start, by: -1) {
                    text[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                    rest /= 10
                }
            }
            digits(year, 4, at: 0)
            text[4] = UInt8(ascii: "-")
            digits(month, 2, at: 5)
            text[7] = UInt8(ascii: "-")
            digits(day, 2, at: 8)
            text[10] = UInt8(ascii: "T")
            digits(seconds / 3600, 2, at: 11)
            text[13] = UInt8(ascii: ":")
            digits(seconds / 60 % 60, 2, at: 14)
            text[16] = UInt8(ascii: ":")
            digits(seconds % 60, 2, at: 17)
            text[19] = UInt8(ascii: ".")
            digits(inDay % 1000, 3, at: 20)
            text[23] = UInt8(ascii: "Z")
            return 24
        }
    }

    /// Parses RFC 3339 `date-time`: `YYYY-MM-DDTHH:MM:SS`, an optional
    /// fraction (digits beyond milliseconds are truncated), then `Z` or a
    /// `±HH:MM` offset. `T` and `Z` may be lower case. Leap seconds (`:60`)
    /// and impossible dates are refused. `nil` for anything else.
    public init?(rfc3339 text: String) {
        let b = Array(text.utf8)
        guard b.count >= 20 else { return nil }
        func number(_ start: Int, _ length: Int) -> Int64? {
            guard start + length <= b.count else { return nil }
            var value: Int64 = 0
            for byte in b[start ..< start + length] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return value
        }
        guard let year = number(0, 4), b[4] == UInt8(ascii: "-"),
              let month = number(5, 2), b[7] == UInt8(ascii: "-"),
              let day = number(8, 2), b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t"),
              let hour = number(11, 2), b[13] == UInt8(ascii: ":"),
              let minute = number(14, 2), b[16] == UInt8(ascii: ":"),
              let second = number(17, 2)
        else { return nil }
        guard (1 ... 12).contains(month), day >= 1, day <= CivilCalendar.daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 60
        else { return nil }
        var index = 19
        var millis: Int64 = 0
        if b[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < b.count, b[index] >= 48, b[index] <= 57 {
                if digits < 3 { millis = millis * 10 + Int64(b[index] - 48) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits ..< max(digits, 3) { millis *= 10 }
        }
        guard index < b.count else { return nil }
        var offsetMinutes: Int64 = 0
        if b[index] == UInt8(ascii: "Z") || b[index] == UInt8(ascii: "z") {
            index += 1
        } else if b[index] == UInt8(ascii: "+") || b[index] == UInt8(ascii: "-") {
            guard let offsetHour = number(index + 1, 2), index + 3 < b.count, b[index + 3] == UInt8(ascii: ":"),
                  let offsetMinute = number(index + 4, 2), offsetHour < 24, offsetMinute < 60
            else { return nil }
            offsetMinutes = (offsetHour * 60 + offsetMinute) * (b[index] == UInt8(ascii: "-") ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        guard index == b.count else { return nil }
        let days = CivilCalendar.days(fromCivil: year, month, day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60
        self.init(millisecondsSince1970: seconds * 1000 + millis)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let parsed = Timestamp(rfc3339: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an RFC 3339 date-time: \(text)")
        }
        self = parsed
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rfc3339)
    }

    public var description: String { rfc3339 }
}

extension Comparable {
    fileprivate func clamped(to range: ClosedRange<Self>) -> Self {
        min(max(self, range.lowerBound), range.upperBound)
    }
}
