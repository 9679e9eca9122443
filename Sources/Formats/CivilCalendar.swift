/// Days and dates of the proleptic Gregorian calendar (Howard Hinnant's
/// `days_from_civil` and `civil_from_days`: eras of 400 years, years
/// starting in March), for every date the server writes or reads: the
/// domain's RFC 3339 timestamps and HTTP's `Date` field. Days count from
/// 1970-01-01 (day 0), negative before it.
public enum CivilCalendar {
    /// Year, month (1–12) and day (1–31) of the day `days` after 1970-01-01.
    @inlinable
    public static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
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

    /// The day of `year`-`month`-`day` counted from 1970-01-01; the date
    /// is taken as valid (see `daysIn(month:year:)`).
    @inlinable
    public static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    public static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The day of `seconds` since the epoch (rounded toward the past) and
    /// the second within that day (0–86 399).
    @inlinable
    public static func day(ofSeconds seconds: Int64) -> (days: Int64, secondOfDay: Int64) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        return (days, seconds - days * 86_400)
    }

    /// 0 for Sunday through 6 for Saturday (1970-01-01 was a Thursday).
    @inlinable
    public static func weekday(ofDays days: Int64) -> Int {
        Int(((days % 7) + 11) % 7)
    }
}
