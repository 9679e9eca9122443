import Dispatch

/// The write connections `PostgresConfiguration.writerCount` 0 stands for:
/// one while the database answers within `nearby`, `distant` beyond it.
/// A writer's batch is a chain of round trips, so one connection's writes
/// per second fall with the round trip while the database's CPU per write
/// does not; several connections win that back, but on a database that
/// answers at once they only split the group commits (docs/postgres.md,
/// "Write connections").
enum PostgresWriterCount {
    static let nearby = Duration.microseconds(500)
    static let distant = 3

    /// The median of `probes` round trips (`SELECT 1`) on a connection of
    /// its own, off the caller's thread.
    static func measuredRoundTrip(url: String, probes: Int = 5) async throws -> Duration {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Duration, any Error>) in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    let connection = try PostgresConnection(url: url, statementCacheCapacity: 1)
                    let clock = ContinuousClock()
                    var times: [Duration] = []
                    for _ in 0..<max(1, probes) {
                        let started = clock.now
                        try connection.exec("SELECT 1")
                        times.append(clock.now - started)
                    }
                    return times.sorted()[times.count / 2]
                })
            }
        }
    }

    static func forRoundTrip(_ roundTrip: Duration) -> Int {
        roundTrip < nearby ? 1 : distant
    }
}
