/// What `GroupCommitQueue` needs of a writer's request: whether it may run
/// while storage is unavailable, and how to fail it when it will not run.
/// The backend-specific part (the closure that performs the write on the
/// writer's connection) stays in each writer's own `Request`.
protocol GroupCommitRequest: Sendable {
    /// A probe (from `checkAvailability`) also runs while storage is
    /// marked unavailable; ordinary requests are refused then.
    var isProbe: Bool { get }
    /// Completes the caller's continuation with `error`.
    var fail: @Sendable (any Error) -> Void { get }
}
