import Testing
@testable import HTTPServer

/// The body progress rule as arithmetic: no sockets, no clock.
@Suite struct BodyProgressRuleTests {
    let second: Int64 = 1_000_000_000
    let rule = BodyProgressRule(stallTimeout: .seconds(10), minRate: 500, grace: .seconds(5), totalTimeout: .seconds(60))

    @Test func aBodyWithFewBytesIsDueWhenTheGraceEnds() {
        // 1 byte every 5 s (the attack): the stall limit never fires, the rate limit does.
        #expect(rule.deadline(startedAt: 0, lastProgressAt: 0, received: 0) == 5 * second)
        #expect(rule.deadline(startedAt: 0, lastProgressAt: 4 * second, received: 1) == 5 * second)
        #expect(rule.shortfall(startedAt: 0, lastProgressAt: 4 * second, received: 1, now: 5 * second) == .tooSlow)
        #expect(rule.shortfall(startedAt: 0, lastProgressAt: 4 * second, received: 1, now: 5 * second - 1) == nil)
    }

    @Test func eachByteAtTheMinimumRateBuysTimeAfterTheGrace() {
        // 5,000 bytes at 500 B/s last until second 10, then the stall limit (last byte at 9 s → 19 s) is later.
        #expect(rule.deadline(startedAt: 0, lastProgressAt: 9 * second, received: 5_000) == 10 * second)
        #expect(rule.shortfall(startedAt: 0, lastProgressAt: 9 * second, received: 5_000, now: 10 * second) == .tooSlow)
        #expect(rule.shortfall(startedAt: 0, lastProgressAt: 9 * second, received: 5_001, now: 10 * second) == nil)
    }

    @Test func aStalledBodyIsDueAfterTheStallTimeout() {
        // Fast start, then nothing: 1 MB in the first second is rate enough for 2,000 s.
        #expect(rule.deadline(startedAt: 0, lastProgressAt: 1 * second, received: 1_000_000) == 11 * second)
        #expect(rule.shortfall(startedAt: 0, lastProgressAt: 1 * second, received: 1_000_000, now: 11 * second) == .stalled)
    }

    @Test func theWholeBodyIsDueAtTheTotalTimeout() {
        // Steady and fast, but never finished: the total limit ends it.
        #expect(rule.deadline(startedAt: 0, lastProgressAt: 59 * second, received: 10_000_000) == 60 * second)
        #expect(rule.shortfall(startedAt: 0, lastProgressAt: 59 * second, received: 10_000_000, now: 60 * second) == .tooLong)
    }

    @Test func aZeroRateTurnsTheRateLimitOff() {
        var lenient = rule
        lenient.minRate = 0
        #expect(lenient.deadline(startedAt: 0, lastProgressAt: 8 * second, received: 1) == 18 * second)
        #expect(lenient.shortfall(startedAt: 0, lastProgressAt: 8 * second, received: 1, now: 17 * second) == nil)
    }

    @Test func eachShortfallSaysWhatWasMissed() {
        #expect(rule.detail(.stalled) == "The request body stopped arriving.")
        #expect(rule.detail(.tooSlow).contains("500 bytes per second"))
        #expect(rule.detail(.tooLong).contains("60 seconds"))
    }
}
