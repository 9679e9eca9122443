import Domain

/// A mail asked of a service whose mail is off: final, since nothing
/// will send it (the clients enqueue no mail then; one enqueued before a
/// restart without SMTP settings ends here).
public struct MailOff: Error, PermanentFailure {
    public init() {}
    public var reason: String { "mail is off: no smtp_host is configured" }
}
