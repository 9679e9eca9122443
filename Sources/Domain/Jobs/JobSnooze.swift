/// Work that is not due yet because what it waits for has not happened
/// (an order's checkout still finishing): the job is queued again after
/// `delayMilliseconds`, and the attempt does not count against its
/// `maxAttempts` nor as a failure.
public protocol JobSnooze: Error {
    var delayMilliseconds: Int64 { get }
}
