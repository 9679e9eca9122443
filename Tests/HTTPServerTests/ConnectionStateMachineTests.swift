import Testing
@testable import HTTPServer

/// The connection's protocol state as a value: events in, actions out, time
/// as numbers (a fake clock). No sockets.
@Suite struct ConnectionStateMachineTests {
    typealias Machine = ConnectionStateMachine
    let second: Int64 = 1_000_000_000
    let timeouts = Machine.Timeouts(
        header: .seconds(10), idle: .seconds(60), write: .seconds(30), linger: .seconds(2),
        bodyProgress: BodyProgressRule(stallTimeout: .seconds(10), minRate: 500, grace: .seconds(5),
                                       totalTimeout: .seconds(60)),
        inputBacklog: 64 * 1024)

    func machine(at now: Int64 = 0) -> Machine { Machine(timeouts: timeouts, now: now) }

    /// A machine answering one request (head and empty body read, handler started).
    func responding(at now: Int64 = 0) -> Machine {
        var machine = machine(at: now)
        #expect(machine.inputArrived(peerClosed: false) == .parse)
        machine.headReceived(now: now)
        machine.handlerStarted()
        return machine
    }

    // MARK: Transitions

    @Test func aNewConnectionIsIdleQuietAndDueAfterTheHeaderTimeout() {
        let machine = machine(at: 5 * second)
        #expect(machine.phase == .idle)
        #expect(machine.quietSince == 5 * second)
        #expect(machine.deadline == 15 * second)
        #expect(machine.wantsInput)
        #expect(machine.mayParse)
    }

    @Test func aRefusedConnectionIsNeverQuietAndHasNoDeadline() {
        let machine = Machine(timeouts: timeouts, now: 5 * second, refusing: true)
        #expect(machine.quietSince == 0)
        #expect(machine.deadline == 0)
    }

    @Test func aRequestGoesIdleHeadBodyRespondingIdle() {
        var machine = machine()
        #expect(machine.inputArrived(peerClosed: false) == .parse)
        machine.requestStarted(now: 1 * second)
        #expect(machine.phase == .head)
        #expect(machine.deadline == 11 * second)
        machine.headReceived(now: 2 * second)
        #expect(machine.phase == .body)
        #expect(machine.deadline == 7 * second)  // the body's 5 s grace with no byte yet
        machine.bodyBytesArrived(10_000, now: 3 * second)
        // 10,000 bytes at 500 B/s are rate enough until 22 s; the stall limit (13 s) comes first.
        #expect(machine.deadline == 13 * second)
        machine.handlerStarted()
        #expect(machine.phase == .responding)
        #expect(machine.deadline == 0)
        #expect(machine.quietSince == 0)
        #expect(!machine.mayParse)
        machine.responseBegan(keepAlive: true)
        machine.responseComplete(draining: false, now: 4 * second)
        #expect(machine.phase == .idle)
        #expect(machine.deadline == 64 * second)
        #expect(machine.quietSince == 4 * second)
        #expect(machine.mayParse)
        #expect(machine.outputDrained(now: 4 * second) == .none)
    }

    @Test func bytesOfARequestBeingReadMarkItQuietSinceThem() {
        var machine = machine()
        machine.requestStarted(now: 1 * second)
        #expect(machine.inputParsed(readBytes: true, buffered: 10, outputEmpty: true, now: 3 * second) == .none)
        #expect(machine.quietSince == 3 * second)
        machine.handlerStarted()
        #expect(machine.inputParsed(readBytes: true, buffered: 10, outputEmpty: true, now: 4 * second) == .none)
        #expect(machine.quietSince == 0)
    }

    @Test func aResponseWithoutKeepAliveLingersOnceWrittenThenCloses() {
        var machine = responding()
        machine.responseBegan(keepAlive: false)
        machine.responseComplete(draining: false, now: 1 * second)
        #expect(machine.phase == .lingering)
        #expect(!machine.mayParse)
        #expect(machine.deadline == 0)  // nothing to wait for until the output is written
        #expect(machine.outputDrained(now: 2 * second) == .linger)
        #expect(machine.deadline == 4 * second)
        #expect(machine.wantsInput)
        #expect(machine.outputDrained(now: 3 * second) == .none)  // lingering starts once
        #expect(machine.inputArrived(peerClosed: false) == .discardInput)
        #expect(machine.inputArrived(peerClosed: true) == .close(.peerClosed))
    }

    @Test func aPeerThatClosedWhileAnsweredGetsItsResponseThenCloses() {
        var machine = responding()
        #expect(machine.inputArrived(peerClosed: true) == .parse)
        #expect(machine.inputParsed(readBytes: false, buffered: 0, outputEmpty: true, now: 0) == .none)  // still answered
        #expect(!machine.wantsInput)
        machine.responseBegan(keepAlive: true)
        machine.responseComplete(draining: false, now: 1 * second)
        #expect(machine.phase == .idle)
        #expect(machine.inputParsed(readBytes: false, buffered: 0, outputEmpty: true, now: 1 * second) == .close(.peerClosed))
    }

    @Test func aPeerThatHalfClosedGetsEveryBufferedResponseWrittenBeforeTheClose() {
        var machine = machine()
        // Two pipelined requests and the peer's FIN, read in one go.
        #expect(machine.inputArrived(peerClosed: true) == .parse)
        for now in [1, 2] as [Int64] {
            #expect(machine.mayParse)
            machine.headReceived(now: now)
            machine.handlerStarted()
            machine.responseBegan(keepAlive: true)
            machine.responseComplete(draining: false, now: now)
        }
        // Parsed to the end with both responses still queued: no close yet.
        #expect(machine.inputParsed(readBytes: true, buffered: 0, outputEmpty: false, now: 3) == .none)
        #expect(machine.phase == .lingering)
        #expect(!machine.mayParse)
        #expect(!machine.wantsInput)
        #expect(machine.outputDrained(now: 4) == .close(.peerClosed))
    }

    @Test func aPeerThatHalfClosedWhileItsOutputIsOverTheWatermarkIsAnsweredOnceItDrains() {
        var machine = machine()
        #expect(machine.inputArrived(peerClosed: true) == .parse)
        machine.headReceived(now: 1)
        machine.handlerStarted()
        machine.responseBegan(keepAlive: true)
        machine.responseComplete(draining: false, now: 1)
        #expect(machine.writeBlocked(overHighWatermark: true, progressed: true, now: 1) == .none)
        // Requests are still buffered behind the output: neither closed nor parsed.
        #expect(machine.inputParsed(readBytes: true, buffered: 500, outputEmpty: false, now: 2) == .none)
        #expect(machine.phase == .idle)
        #expect(!machine.mayParse)
        #expect(machine.outputDrained(now: 3) == .parse)
        #expect(machine.inputParsed(readBytes: false, buffered: 0, outputEmpty: false, now: 4) == .none)
        #expect(machine.outputDrained(now: 5) == .close(.peerClosed))
    }

    @Test func aPeerThatHalfClosesBeforeItsLastResponseIsWrittenStillGetsIt() {
        var machine = responding()
        machine.responseBegan(keepAlive: false)
        machine.responseComplete(draining: false, now: 1)
        #expect(machine.writeBlocked(overHighWatermark: false, progressed: true, now: 1) == .none)
        #expect(machine.inputArrived(peerClosed: true) == .discardInput)
        #expect(machine.phase == .lingering)
        #expect(machine.outputDrained(now: 2) == .close(.peerClosed))
    }

    @Test func endOfInputDuringAPartialRequestCloses() {
        var machine = machine()
        machine.requestStarted(now: 0)
        #expect(machine.inputArrived(peerClosed: true) == .parse)
        #expect(machine.inputParsed(readBytes: true, buffered: 3, outputEmpty: true, now: 0) == .close(.peerClosed))
    }

    @Test func anAnswerThatLeavesTheBodyUnreadStopsParsing() {
        var machine = machine()
        machine.headReceived(now: 0)
        machine.stopReadingRequests()
        #expect(!machine.mayParse)
        machine.handlerStarted()
        machine.responseBegan(keepAlive: true)
        machine.responseComplete(draining: false, now: 1)
        #expect(machine.phase == .lingering)
    }

    @Test func closedIgnoresEverything() {
        var machine = responding()
        machine.closed()
        #expect(machine.phase == .closed)
        #expect(machine.deadline == 0)
        #expect(machine.quietSince == 0)
        #expect(!machine.wantsInput)
        #expect(!machine.mayParse)
        #expect(machine.inputArrived(peerClosed: false) == .none)
        #expect(machine.timerFired(now: 1_000 * second) == .none)
        #expect(machine.outputDrained(now: 0) == .none)
        #expect(machine.shutdown() == .none)
        #expect(machine.reclaim(outputEmpty: true) == .none)
        machine.responseComplete(draining: false, now: 0)
        #expect(machine.phase == .closed)
    }

    // MARK: Deadlines, through a fake clock

    @Test func theHeaderTimeoutBeforeAnyByteCloses() {
        var machine = machine()
        #expect(machine.timerFired(now: 10 * second - 1) == .none)
        #expect(machine.timerFired(now: 10 * second) == .close(.idleTimeout))
    }

    @Test func theHeaderTimeoutOfAPartialHeadAnswers408() {
        var machine = machine()
        machine.requestStarted(now: 1 * second)
        #expect(machine.timerFired(now: 11 * second - 1) == .none)
        #expect(machine.timerFired(now: 11 * second)
            == .answerTimeout(detail: "The header section did not arrive in time."))
        #expect(machine.deadline == 0)
    }

    @Test func aSlowBodyAnswers408AndAProgressingOneIsRearmed() {
        var machine = machine()
        machine.headReceived(now: 0)
        machine.bodyBytesArrived(5_000, now: 1 * second)  // rate enough until 10 s; stall at 11 s
        #expect(machine.deadline == 10 * second)
        #expect(machine.timerFired(now: 10 * second) == .answerTimeout(
            detail: "The request body arrived slower than 500 bytes per second."))

        var progressing = self.machine()
        progressing.headReceived(now: 0)
        progressing.bodyBytesArrived(100_000, now: 1 * second)
        #expect(progressing.deadline == 11 * second)  // the stall limit
        progressing.bodyBytesArrived(100_000, now: 10 * second)
        // A timer set for the old deadline finds the new one not yet due.
        #expect(progressing.timerFired(now: 11 * second) == .none)
        #expect(progressing.deadline == 20 * second)
        #expect(progressing.timerFired(now: 20 * second) == .answerTimeout(detail: "The request body stopped arriving."))
    }

    @Test func theIdleTimeoutClosesBetweenRequests() {
        var machine = responding()
        machine.responseBegan(keepAlive: true)
        machine.responseComplete(draining: false, now: 1 * second)
        #expect(machine.timerFired(now: 61 * second - 1) == .none)
        #expect(machine.timerFired(now: 61 * second) == .close(.idleTimeout))
    }

    @Test func theWriteDeadlineStartsAtTheFirstBlockAndEndsWhenDrained() {
        var machine = responding()
        #expect(machine.writeBlocked(overHighWatermark: false, progressed: false, now: 1 * second) == .none)
        #expect(machine.deadline == 31 * second)
        #expect(machine.writeBlocked(overHighWatermark: false, progressed: false, now: 20 * second) == .none)
        #expect(machine.deadline == 31 * second)
        #expect(machine.timerFired(now: 31 * second) == .close(.writeTimeout))

        var draining = responding()
        #expect(draining.writeBlocked(overHighWatermark: false, progressed: false, now: 1 * second) == .none)
        #expect(draining.outputDrained(now: 2 * second) == .none)
        #expect(draining.deadline == 0)
        #expect(draining.timerFired(now: 31 * second) == .none)
    }

    @Test func theWriteDeadlineMovesWithEveryWriteThatSendsAByte() {
        var machine = responding()
        #expect(machine.writeBlocked(overHighWatermark: true, progressed: true, now: 1 * second) == .none)
        #expect(machine.deadline == 31 * second)
        // A slow reader: a little more taken every 20 s, 80 s in all.
        for now in [21, 41, 61, 81] as [Int64] {
            #expect(machine.timerFired(now: now * second) == .none)
            #expect(machine.writeBlocked(overHighWatermark: true, progressed: true, now: now * second) == .none)
            #expect(machine.deadline == (now + 30) * second)
        }
        // Then nothing: a write timeout after the last byte taken.
        #expect(machine.writeBlocked(overHighWatermark: true, progressed: false, now: 100 * second) == .none)
        #expect(machine.timerFired(now: 111 * second - 1) == .none)
        #expect(machine.timerFired(now: 111 * second) == .close(.writeTimeout))
    }

    @Test func aWriteBlockedWhileIdleRestartsTheIdleTimeoutWhenDrained() {
        var machine = responding()
        machine.responseBegan(keepAlive: true)
        machine.responseComplete(draining: false, now: 1 * second)
        #expect(machine.writeBlocked(overHighWatermark: false, progressed: false, now: 1 * second) == .none)
        #expect(machine.deadline == 31 * second)
        #expect(machine.outputDrained(now: 5 * second) == .none)
        #expect(machine.deadline == 65 * second)
    }

    @Test func theLingerDeadlineCloses() {
        var machine = responding()
        machine.responseBegan(keepAlive: false)
        machine.responseComplete(draining: false, now: 0)
        #expect(machine.outputDrained(now: 1 * second) == .linger)
        #expect(machine.timerFired(now: 3 * second) == .close(.lingerEnded))
    }

    @Test func nothingFiresWhileAHandlerRuns() {
        var machine = responding()
        #expect(machine.deadline == 0)
        #expect(machine.timerFired(now: 1_000 * second) == .none)
    }

    // MARK: Pipelining and backpressure

    @Test func pipelinedRequestsWaitForTheResponseBeforeThem() {
        var machine = responding()
        // A second request's bytes arrive while the first is answered: read, not parsed.
        #expect(machine.inputArrived(peerClosed: false) == .parse)
        #expect(!machine.mayParse)
        #expect(machine.inputParsed(readBytes: true, buffered: 200, outputEmpty: true, now: 1) == .none)
        #expect(machine.wantsInput)
        machine.responseBegan(keepAlive: true)
        machine.responseComplete(draining: false, now: 2)
        #expect(machine.mayParse)  // now the second one
        machine.headReceived(now: 2)
        machine.handlerStarted()
        #expect(!machine.mayParse)
    }

    @Test func pipelinedInputBeyondTheBacklogPausesReadingUntilTheResponse() {
        var machine = responding()
        #expect(machine.inputParsed(readBytes: true, buffered: 64 * 1024 - 1, outputEmpty: true, now: 1) == .none)
        #expect(machine.wantsInput)
        #expect(machine.inputParsed(readBytes: true, buffered: 64 * 1024, outputEmpty: true, now: 1) == .none)
        #expect(!machine.wantsInput)
        machine.responseBegan(keepAlive: true)
        machine.responseComplete(draining: false, now: 2)
        #expect(machine.wantsInput)
    }

    @Test func outputBeyondTheHighWatermarkPausesReadingUntilDrained() {
        var machine = responding()
        #expect(machine.writeBlocked(overHighWatermark: false, progressed: false, now: 1) == .none)
        #expect(machine.wantsInput)
        #expect(machine.writeBlocked(overHighWatermark: true, progressed: false, now: 2) == .none)
        #expect(!machine.wantsInput)
        #expect(machine.outputDrained(now: 3) == .none)
        #expect(machine.wantsInput)
    }

    @Test func pipelinedRequestsWaitWhileTheOutputIsOverTheWatermark() {
        var machine = responding()
        machine.responseBegan(keepAlive: true)
        machine.responseComplete(draining: false, now: 1)
        #expect(machine.mayParse)
        #expect(machine.writeBlocked(overHighWatermark: true, progressed: true, now: 2) == .none)
        #expect(!machine.mayParse)
        #expect(!machine.wantsInput)
        #expect(machine.inputParsed(readBytes: false, buffered: 4_000, outputEmpty: false, now: 2) == .none)
        // Some output taken, still over: still waiting.
        #expect(machine.writeBlocked(overHighWatermark: true, progressed: true, now: 3) == .none)
        #expect(!machine.mayParse)
        // Below the watermark, though not drained: answer the next one.
        #expect(machine.writeBlocked(overHighWatermark: false, progressed: true, now: 4) == .parse)
        #expect(machine.mayParse)
        #expect(machine.wantsInput)
        #expect(machine.writeBlocked(overHighWatermark: false, progressed: true, now: 5) == .none)
        // Over again, then drained.
        #expect(machine.writeBlocked(overHighWatermark: true, progressed: true, now: 6) == .none)
        #expect(machine.outputDrained(now: 7) == .parse)
        #expect(machine.mayParse)
        #expect(machine.outputDrained(now: 8) == .none)
    }

    @Test func outputBelowTheWatermarkNeverAsksForAParseWhileAResponseIsPending() {
        var machine = responding()
        #expect(machine.writeBlocked(overHighWatermark: true, progressed: false, now: 1) == .none)
        #expect(machine.writeBlocked(overHighWatermark: false, progressed: true, now: 2) == .none)
        #expect(!machine.mayParse)
    }

    // MARK: Shutdown in each phase

    @Test func shutdownClosesIdleConnectionsAndEndsStreams() {
        var idle = machine()
        #expect(idle.shutdown() == .close(.shutdown))

        var answering = responding()
        #expect(answering.shutdown() == .cancelStream)
        #expect(answering.closeAfterOutput)
        answering.responseComplete(draining: true, now: 1)
        #expect(answering.phase == .lingering)
    }

    @Test func shutdownLetsARequestBeingReadArriveAndBeAnsweredThenLinger() {
        var head = machine()
        head.requestStarted(now: 0)
        #expect(head.shutdown() == .none)
        #expect(head.mayParse)

        var body = machine()
        body.headReceived(now: 0)
        #expect(body.shutdown() == .none)
        #expect(body.mayParse)
        body.handlerStarted()
        body.responseBegan(keepAlive: true)
        body.responseComplete(draining: true, now: 1)
        #expect(body.phase == .lingering)
    }

    @Test func shutdownLeavesALingeringConnectionToFinish() {
        var machine = responding()
        machine.responseBegan(keepAlive: false)
        machine.responseComplete(draining: false, now: 0)
        #expect(machine.shutdown() == .none)
        #expect(machine.phase == .lingering)
    }

    // MARK: Reclaiming at the connection cap

    @Test func onlyQuietConnectionsWithNothingToWriteAreReclaimed() {
        var idle = machine()
        #expect(idle.reclaim(outputEmpty: true) == .close(.reclaimed))
        #expect(idle.reclaim(outputEmpty: false) == .none)
        var head = machine()
        head.requestStarted(now: 0)
        #expect(head.reclaim(outputEmpty: true) == .close(.reclaimed))
        var answering = responding()
        #expect(answering.reclaim(outputEmpty: true) == .none)
    }
}
