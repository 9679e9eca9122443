import Glibc
import Testing
import TestSupport
@testable import HTTPServer

/// The `Date` line worked out by arithmetic, against the C library's
/// `gmtime_r` and RFC 9110's own example.
@Suite struct HTTPDateTests {
    private func line(_ seconds: Int) -> String {
        var head: [UInt8] = []
        HTTPDate.appendHeaderLine(for: seconds, to: &head)
        return String(decoding: head, as: UTF8.self)
    }

    /// The same line from `gmtime_r` and `strftime`.
    private func expected(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "Date: %a, %d %b %Y %H:%M:%S GMT\r\n", &parts)
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    @Test func theRFCsExample() {
        #expect(line(784_111_777) == "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n")
    }

    @Test func edgesOfDaysYearsAndCenturies() {
        // 1970-01-01, the end of 1999, 2000-02-29 (a leap century), 2100-03-01
        // (2100 is not a leap year), 2038-01-19 past 32 bits, a day before the epoch.
        for seconds in [0, 946_684_799, 951_782_400, 4_107_542_400, 2_147_483_648, -1, -86_400, 86_399, 86_400] {
            #expect(line(seconds) == expected(seconds), "\(seconds)")
        }
    }

    @Test func randomInstantsFrom1900To2200() {
        var random = SplitMix64(seed: 25)
        for _ in 0..<20_000 {
            let seconds = Int.random(in: -2_208_988_800...7_258_118_400, using: &random)
            #expect(line(seconds) == expected(seconds), "\(seconds)")
        }
    }
}
