import Glibc
import Synchronization

/// The IMF-fixdate for the `Date` field (RFC 9110 5.6.7), formatted at most
/// once per second for the whole process.
enum HTTPDate {
    private static let cache = Mutex<(second: Int, bytes: [UInt8])>((-1, []))

    /// `Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n`, ready to append to a head.
    static func headerLine() -> [UInt8] {
        let now = time(nil)
        return cache.withLock { cached in
            if cached.second != now {
                cached = (now, Array("Date: \(format(now))\r\n".utf8))
            }
            return cached.bytes
        }
    }

    static func format(_ seconds: time_t) -> String {
        var time = seconds
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
