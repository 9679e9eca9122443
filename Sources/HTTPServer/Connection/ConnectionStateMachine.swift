/// The protocol state of one connection as a value: `HTTPConnection` reports
/// what happened (input arrived, a head or body byte was parsed, a handler
/// started, a response completed, the socket blocked or drained, a timer
/// fired, shutdown) and carries out the action returned. Four outputs are
/// read after every event: `deadline` (when the next timer must fire),
/// `quietSince` (for reclaiming at the connection caps), `wantsInput`
/// (whether the socket is watched for reading: backpressure) and
/// `mayParse` (whether the next buffered request may be answered).
///
/// No sockets and no clock: every event that depends on time carries `now`
/// (monotonic nanoseconds), so the tests drive each deadline with numbers.
/// Hummingbird's `HTTPConnectionStateHandler.StateMachine` and NIO's
/// `HTTPServerPipelineHandler` are the models: an invariant is checked by
/// reading one `switch`, not by running sockets.
struct ConnectionStateMachine {
    enum Phase: Equatable {
        /// Between requests (or before the first): idle or header timeout.
        case idle
        /// Part of a header section has arrived: header timeout → 408.
        case head
        /// The body is being read: the body progress rule → 408.
        case body
        /// A handler runs or a response streams: no read timeout, and no
        /// pipelined request is parsed (responses stay in request order).
        case responding
        /// Final response queued; once written, discard input until EOF
        /// before closing, so unread bytes do not make the kernel reset the
        /// connection and destroy the response in flight (a lingering close).
        /// A peer that closed first is closed as soon as the output is
        /// written.
        case lingering
        case closed
    }

    /// Why the driver is told to close; decides what is logged.
    enum CloseReason: Equatable {
        case peerClosed
        case idleTimeout
        case lingerEnded
        case writeTimeout
        case shutdown
        case reclaimed
    }

    enum Action: Equatable {
        case none
        /// Parse and dispatch the buffered input.
        case parse
        /// Lingering: drop what was read.
        case discardInput
        /// The last response is written: shut down the sending side and
        /// drop input until EOF or the linger deadline.
        case linger
        /// Shutdown while a response streams: end the stream.
        case cancelStream
        /// Drop the request being read and answer 408 with this detail.
        case answerTimeout(detail: String)
        case close(CloseReason)
    }

    struct Timeouts: Equatable {
        var header: Duration
        var idle: Duration
        var write: Duration
        /// How long a lingering close waits for the client's EOF.
        var linger: Duration = .seconds(2)
        var bodyProgress: BodyProgressRule
        /// Pipelined input buffered while a request is answered beyond which
        /// reading pauses until the response is complete.
        var inputBacklog: Int = 64 * 1024
    }

    let timeouts: Timeouts
    private(set) var phase = Phase.idle
    /// Since when (monotonic ns) the connection has been quiet: idle, or
    /// while a request arrives, since its last byte; 0 while a request is
    /// being answered.
    private(set) var quietSince: Int64 = 0
    private(set) var peerClosed = false
    /// No further request will be read; linger once the output is written.
    private(set) var closeAfterOutput = false
    /// The phase's own deadline, and the write deadline armed while the
    /// socket does not take the output (it takes precedence).
    private var phaseDeadline: Int64 = 0
    private var writeDeadline: Int64 = 0
    private var outputBackpressure = false
    private var inputBacklogged = false
    private var lingerStarted = false
    private var bodyStartedAt: Int64 = 0
    private var bodyProgressAt: Int64 = 0
    private var bodyReceived = 0

    /// A refused connection (503 at the cap) is never quiet and gets no
    /// header deadline: its answer is queued at once.
    init(timeouts: Timeouts, now: Int64, refusing: Bool = false) {
        self.timeouts = timeouts
        if !refusing {
            quietSince = now
            phaseDeadline = now + timeouts.header.nanoseconds
        }
    }

    /// When the next timer must fire (monotonic ns; 0 = none).
    var deadline: Int64 {
        guard phase != .closed else { return 0 }
        return writeDeadline != 0 ? writeDeadline : phaseDeadline
    }

    /// Whether the socket should be watched for input.
    var wantsInput: Bool {
        switch phase {
        case .closed: false
        case .lingering: !peerClosed
        case .idle, .head, .body, .responding: !peerClosed && !outputBackpressure && !inputBacklogged
        }
    }

    /// Whether the next request may be parsed now: never while one is being
    /// answered, which is what keeps pipelined responses in order, nor while
    /// the output is over the high watermark, which is what bounds the
    /// responses a client that does not read makes us hold.
    var mayParse: Bool {
        (phase == .idle || phase == .head || phase == .body) && !closeAfterOutput && !outputBackpressure
    }

    // MARK: Reading and answering requests

    /// Bytes were read (or EOF seen, `peerClosed`).
    mutating func inputArrived(peerClosed eof: Bool) -> Action {
        guard phase != .closed else { return .none }
        if eof { peerClosed = true }
        if phase == .lingering {
            // Before the last response is written, an EOF only means the
            // peer sends no more (a half-close): it may still read.
            return peerClosed && lingerStarted ? .close(.peerClosed) : .discardInput
        }
        return .parse
    }

    /// The buffered input has been parsed as far as it may be and the
    /// output written as far as the socket takes it; `buffered` bytes are
    /// left unparsed, `readBytes` says whether any were read.
    mutating func inputParsed(readBytes: Bool, buffered: Int, outputEmpty: Bool, now: Int64) -> Action {
        guard phase != .closed else { return .none }
        if readBytes, phase == .head || phase == .body { quietSince = now }
        if peerClosed {
            // Nothing more will arrive. A request being answered, and those
            // buffered behind it or behind output over the watermark, still
            // get their responses; a request left half-read never completes.
            // The responses queued are written before the close: a client
            // that sends and half-closes (`nc -N`, scripts) reads them.
            guard phase == .idle || phase == .head || phase == .body, !outputBackpressure else { return .none }
            closeAfterOutput = true
            phase = .lingering
            phaseDeadline = 0
            return outputEmpty ? .close(.peerClosed) : .none
        }
        // Pipelined requests pile up while one is answered: stop reading
        // until the response is complete.
        if phase == .responding, buffered >= timeouts.inputBacklog { inputBacklogged = true }
        return .none
    }

    /// The first bytes of a request arrived without a complete head.
    mutating func requestStarted(now: Int64) {
        guard phase == .idle else { return }
        phase = .head
        phaseDeadline = now + timeouts.header.nanoseconds
    }

    /// A complete head was parsed; its body (possibly empty) follows.
    mutating func headReceived(now: Int64) {
        guard phase == .idle || phase == .head else { return }
        phase = .body
        bodyStartedAt = now
        bodyProgressAt = now
        bodyReceived = 0
        phaseDeadline = timeouts.bodyProgress.deadline(startedAt: now, lastProgressAt: now, received: 0)
    }

    /// `count` body bytes (framing included) were consumed.
    mutating func bodyBytesArrived(_ count: Int, now: Int64) {
        guard phase == .body, count > 0 else { return }
        bodyReceived += count
        bodyProgressAt = now
        phaseDeadline = timeouts.bodyProgress.deadline(startedAt: bodyStartedAt, lastProgressAt: now,
                                                       received: bodyReceived)
    }

    /// No further request will be read on this connection (a request whose
    /// body is left unread, an answer that closes).
    mutating func stopReadingRequests() {
        closeAfterOutput = true
    }

    /// A handler was started for the request just read.
    mutating func handlerStarted() {
        guard phase != .closed else { return }
        phase = .responding
        phaseDeadline = 0
        quietSince = 0
    }

    /// A response head is queued; without keep-alive it is the last one.
    mutating func responseBegan(keepAlive: Bool) {
        if !keepAlive { closeAfterOutput = true }
    }

    /// The response is completely queued. A response that began before
    /// shutdown (a stream, typically) ends the connection when shutdown has
    /// begun since (`draining`): the drain closed the idle connections once
    /// and will not come back for this one.
    mutating func responseComplete(draining: Bool, now: Int64) {
        guard phase != .closed else { return }
        if draining { closeAfterOutput = true }
        inputBacklogged = false
        if closeAfterOutput {
            phase = .lingering
            phaseDeadline = 0
        } else {
            phase = .idle
            phaseDeadline = now + timeouts.idle.nanoseconds
        }
        quietSince = now
    }

    // MARK: Writing, timers, shutdown and closing

    /// The socket did not take all the output; `progressed` says whether it
    /// took some. The write deadline measures progress: it is armed at the
    /// first block and moved on by every write that sends a byte, so a
    /// slow reader that keeps reading is served however long it takes, and
    /// one that stops is closed a write timeout after its last byte. Over
    /// the high watermark, reading and answering buffered requests pause,
    /// so a client that does not read cannot make us hold more; below it
    /// they resume (`.parse`).
    mutating func writeBlocked(overHighWatermark: Bool, progressed: Bool, now: Int64) -> Action {
        guard phase != .closed else { return .none }
        if writeDeadline == 0 || progressed { writeDeadline = now + timeouts.write.nanoseconds }
        return outputLevel(overHighWatermark: overHighWatermark)
    }

    /// All output is written.
    mutating func outputDrained(now: Int64) -> Action {
        guard phase != .closed else { return .none }
        if writeDeadline != 0 {
            writeDeadline = 0
            if phase == .idle { phaseDeadline = now + timeouts.idle.nanoseconds }
        }
        let resume = outputLevel(overHighWatermark: false)
        guard phase == .lingering, !lingerStarted else { return resume }
        if peerClosed { return .close(.peerClosed) }
        lingerStarted = true
        phaseDeadline = now + timeouts.linger.nanoseconds
        return .linger
    }

    /// Records whether the output is over the high watermark; `.parse` when
    /// it has just fallen below it and a buffered request may be answered.
    private mutating func outputLevel(overHighWatermark: Bool) -> Action {
        let wasOver = outputBackpressure
        outputBackpressure = overHighWatermark
        return wasOver && mayParse ? .parse : .none
    }

    /// The timer fired; does nothing before `deadline`.
    mutating func timerFired(now: Int64) -> Action {
        let due = deadline
        guard due != 0, now >= due else { return .none }
        if writeDeadline != 0 { return .close(.writeTimeout) }
        switch phase {
        case .idle:
            return .close(.idleTimeout)
        case .lingering:
            return .close(.lingerEnded)
        case .head:
            phaseDeadline = 0
            return .answerTimeout(detail: "The header section did not arrive in time.")
        case .body:
            let rule = timeouts.bodyProgress
            guard let shortfall = rule.shortfall(startedAt: bodyStartedAt, lastProgressAt: bodyProgressAt,
                                                 received: bodyReceived, now: now) else {
                phaseDeadline = rule.deadline(startedAt: bodyStartedAt, lastProgressAt: bodyProgressAt,
                                              received: bodyReceived)
                return .none
            }
            phaseDeadline = 0
            return .answerTimeout(detail: rule.detail(shortfall))
        case .responding, .closed:
            return .none
        }
    }

    /// Shutdown began: idle connections close now; one being answered
    /// closes after its response (a stream is ended). One whose request is
    /// arriving reads it and is answered without keep-alive
    /// (`responseComplete(draining:)`).
    mutating func shutdown() -> Action {
        switch phase {
        case .idle:
            return .close(.shutdown)
        case .responding:
            closeAfterOutput = true
            return .cancelStream
        case .head, .body, .lingering, .closed:
            return .none
        }
    }

    /// The server is full and wants this connection's slot: granted while
    /// it is quiet and has written all its output (a lingering slow reader
    /// keeps its response); a request being answered is never reclaimed.
    mutating func reclaim(outputEmpty: Bool) -> Action {
        switch phase {
        case .idle, .head, .body, .lingering:
            return outputEmpty ? .close(.reclaimed) : .none
        case .responding, .closed:
            return .none
        }
    }

    mutating func closed() {
        phase = .closed
        quietSince = 0
        phaseDeadline = 0
        writeDeadline = 0
    }
}
