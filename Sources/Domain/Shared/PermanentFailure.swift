/// An error that retrying cannot cure (an SMTP server's 5xx, a payload that
/// no longer decodes, a recipient that no longer exists): a job that fails
/// with one is `dead` at once, with this reason, instead of being retried.
public protocol PermanentFailure: Error {
    /// What the job's record keeps as its last error.
    var reason: String { get }
}
