/// A delivery's attempt that is not over: the next one is due after
/// `delayMilliseconds` (the schedule's wait after a failure, or a short
/// pause while its endpoint has as many attempts in flight here as it may).
/// The delivery job throws it, so the queue holds the job until then
/// without counting an attempt: the delivery keeps its own count.
public struct WebhookRetry: JobSnooze, CustomStringConvertible {
    public let delayMilliseconds: Int64
    public let reason: String

    public init(delayMilliseconds: Int64, reason: String) {
        self.delayMilliseconds = delayMilliseconds
        self.reason = reason
    }

    public var description: String { reason }
}
