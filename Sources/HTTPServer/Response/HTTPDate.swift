import Glibc

/// The IMF-fixdate for the `Date` field (RFC 9110 5.6.7), worked out for
/// each response from the clock by arithmetic, so event loops share
/// nothing to send it. A process-wide cache of the formatted line was a
/// lock every loop took for every response: with more loops than cores,
/// a loop preempted while holding it stalled every other loop behind it.
enum HTTPDate {
    /// Appends `Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n` for now.
    static func appendHeaderLine(to head: inout [UInt8]) {
        appendHeaderLine(for: Int(time(nil)), to: &head)
    }

    private static let dayNames: [UInt8] = Array("SunMonTueWedThuFriSat".utf8)
    private static let monthNames: [UInt8] = Array("JanFebMarAprMayJunJulAugSepOctNovDec".utf8)

    /// The line for `seconds` since the epoch (UTC, no leap seconds, as
    /// POSIX counts them).
    static func appendHeaderLine(for seconds: Int, to head: inout [UInt8]) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        // 1970-01-01 was a Thursday.
        let weekday = ((days % 7) + 11) % 7
        head.append(contentsOf: "Date: ".utf8)
        head.append(contentsOf: dayNames[weekday * 3..<weekday * 3 + 3])
        head.append(contentsOf: ", ".utf8)
        appendTwoDigits(day, to: &head)
        head.append(ASCII.space)
        head.append(contentsOf: monthNames[(month - 1) * 3..<(month - 1) * 3 + 3])
        head.append(ASCII.space)
        appendTwoDigits(year / 100, to: &head)
        appendTwoDigits(year % 100, to: &head)
        head.append(ASCII.space)
        appendTwoDigits(secondOfDay / 3600, to: &head)
        head.append(UInt8(ascii: ":"))
        appendTwoDigits(secondOfDay / 60 % 60, to: &head)
        head.append(UInt8(ascii: ":"))
        appendTwoDigits(secondOfDay % 60, to: &head)
        head.append(contentsOf: " GMT\r\n".utf8)
    }

    private static func appendTwoDigits(_ value: Int, to head: inout [UInt8]) {
        head.append(UInt8(ascii: "0") + UInt8(value / 10))
        head.append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    /// Year, month (1–12) and day (1–31) of the day `days` after 1970-01-01
    /// in the proleptic Gregorian calendar (Howard Hinnant's
    /// `civil_from_days`: eras of 400 years, years starting in March).
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
