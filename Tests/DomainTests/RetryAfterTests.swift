import Domain
import Testing

/// `Retry-After` in each form RFC 9110 has a recipient accept.
@Suite struct RetryAfterTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT, the RFC's example.
    static let example: Int64 = 784_111_777_000

    @Test func secondsAndEachFormOfHTTPDate() {
        let now = Self.example - 90_000
        #expect(RetryAfter.delay("120", now: now) == 120_000)
        #expect(RetryAfter.delay(" 0 ", now: now) == 0)
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:49:37 GMT", now: now) == 90_000)
        #expect(RetryAfter.delay("Sunday, 06-Nov-94 08:49:37 GMT", now: now) == 90_000)
        #expect(RetryAfter.delay("Sun Nov  6 08:49:37 1994", now: now) == 90_000)
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:49:37 GMT", now: Self.example + 5_000) == 0, "a past date: no wait")
        #expect(RetryAfter.delay("99999999999999999999", now: now)! > 86_400_000, "a huge number is a long wait")
    }

    @Test func anythingElseIsNoAnswer() {
        for text in ["", "soon", "-5", "1.5", "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT",
                     "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Foo 1994 08:49:37 GMT"] {
            #expect(RetryAfter.delay(text, now: 0) == nil, "\(text)")
        }
    }
}
