import Formats
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
        let (days, secondOfDay) = CivilCalendar.day(ofSeconds: Int64(seconds))
        let (year, month, day) = CivilCalendar.civil(fromDays: days)
        let weekday = CivilCalendar.weekday(ofDays: days)
        head.append(contentsOf: "Date: ".utf8)
        head.append(contentsOf: dayNames[weekday * 3..<weekday * 3 + 3])
        head.append(contentsOf: ", ".utf8)
        appendTwoDigits(day, to: &head)
        head.append(ASCII.space)
        head.append(contentsOf: monthNames[Int(month - 1) * 3..<Int(month - 1) * 3 + 3])
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

    private static func appendTwoDigits(_ value: Int64, to head: inout [UInt8]) {
        head.append(UInt8(ascii: "0") + UInt8(value / 10))
        head.append(UInt8(ascii: "0") + UInt8(value % 10))
    }
}
