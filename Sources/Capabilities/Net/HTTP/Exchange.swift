/// One request on its way: its bytes, where it goes, and by when it must
/// have its answer.
struct Exchange: Sendable {
    let bytes: [UInt8]
    let origin: Origin
    let respondingToHead: Bool
    let deadline: ContinuousClock.Instant

    /// What is left of the request's time; zero once it has run out (the
    /// next wait then times out at once).
    var remaining: Duration {
        max(.zero, ContinuousClock.now.duration(to: deadline))
    }
}

/// A failed exchange, and whether it failed before any byte of an answer
/// (and not by running out of time): only then may it be sent again.
struct ExchangeFailure: Error {
    let error: OutboundHTTPError
    let beforeResponse: Bool
}
