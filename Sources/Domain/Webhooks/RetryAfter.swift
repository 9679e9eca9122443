import Formats

/// A `Retry-After` header's value (RFC 9110 10.2.3): a number of seconds
/// or an HTTP-date, in any of its three forms (10.2.3 refers to 5.6.7,
/// whose recipients accept IMF-fixdate, the obsolete RFC 850 form and
/// asctime's).
public enum RetryAfter {
    /// The wait asked for, in milliseconds after `now` (never negative: a
    /// date in the past asks for none); nil when the value is neither form.
    public static func delay(_ value: String, now: Int64) -> Int64? {
        let text = String(value.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            // Past twelve digits (30 000 years) it is still "a long time":
            // the caller caps the wait anyway.
            return (text.utf8.count <= 12 ? Int64(text) ?? 0 : 999_999_999_999) * 1000
        }
        guard let date = httpDate(text) else { return nil }
        return max(0, date - now)
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Milliseconds since 1970 of an HTTP-date, or nil.
    static func httpDate(_ text: String) -> Int64? {
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        var day: Int64?, month: Int64?, year: Int64?, time: [Int64]?
        switch words.count {
        case 6 where words[5] == "GMT" && words[0].hasSuffix(","):
            // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
            day = Int64(words[1])
            month = months.firstIndex(of: words[2]).map { Int64($0) + 1 }
            year = words[3].count == 4 ? Int64(words[3]) : nil
            time = clock(words[4])
        case 4 where words[3] == "GMT" && words[0].hasSuffix(","):
            // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT (a two-digit year
            // taken within 50 years of now, as 5.6.7 asks; 19xx is enough
            // for a header that only says "later").
            let parts = words[1].split(separator: "-").map(String.init)
            guard parts.count == 3, let short = Int64(parts[2]), parts[2].count == 2 else { return nil }
            day = Int64(parts[0])
            month = months.firstIndex(of: parts[1]).map { Int64($0) + 1 }
            year = short < 70 ? 2000 + short : 1900 + short
            time = clock(words[2])
        case 5:
            // asctime: Sun Nov  6 08:49:37 1994
            month = months.firstIndex(of: words[1]).map { Int64($0) + 1 }
            day = Int64(words[2])
            time = clock(words[3])
            year = words[4].count == 4 ? Int64(words[4]) : nil
        default:
            return nil
        }
        guard let day, let month, let year, let time, day >= 1, day <= CivilCalendar.daysIn(month: month, year: year)
        else { return nil }
        let days = CivilCalendar.days(fromCivil: year, month, day)
        return (days * 86_400 + time[0] * 3600 + time[1] * 60 + time[2]) * 1000
    }

    /// `HH:MM:SS`.
    private static func clock(_ text: String) -> [Int64]? {
        let parts = text.split(separator: ":").map { Int64($0) }
        guard parts.count == 3, text.count == 8, let hour = parts[0], let minute = parts[1], let second = parts[2],
              hour < 24, minute < 60, second <= 60 else { return nil }
        return [hour, minute, second]
    }
}
