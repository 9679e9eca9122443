import Domain

/// A job taken over after its lease ran out on its last attempt (the
/// process running it died or stalled, perhaps because of the job): it is
/// not run again but `dead`, so a job that kills its process cannot take
/// down every replica in turn.
struct LeaseLapsedOnLastAttempt: PermanentFailure {
    let attempts: Int

    var reason: String { "its lease ran out on its last attempt (\(attempts - 1))" }
}
