import Axiom
import Capabilities
import Domain

/// The shop's outbound webhooks: the endpoints admins manage, the events
/// fanned out to them, each delivery's attempts and log, and the
/// retention. Owns no state (a `StatelessClient`): endpoints, events,
/// deliveries and attempts are rows (`WebhookEndpointStore`, …) read per
/// call, so every replica sees an endpoint's change at once. What this
/// process holds is its own: the attempts in flight per endpoint
/// (`EndpointLoad`) and its counters.
///
/// Deliveries follow Standard Webhooks: a POST of the event's body with
/// `webhook-id` (the event's id, the same on every retry and endpoint),
/// `webhook-timestamp` and `webhook-signature` (`WebhookSigner`), retried
/// on `WebhookRetrySchedule`, a 410 disabling the endpoint, an endpoint
/// that fails for `webhooks_disable_after` disabled too. Each delivery is
/// a job (`WebhookDeliveryJob`) made in the event's transaction, so the
/// queue schedules the attempts and one replica at a time makes each.
public actor WebhookClient: StatelessClient {
    public nonisolated let settings: WebhookSettings
    public nonisolated let counters: WebhookDeliveryCounters
    let storage: StorageAccess
    let http: CapabilityHandle<OutboundHTTP>
    let authenticator: CapabilityHandle<MessageAuthenticator>
    let random: CapabilityHandle<SecureRandom>
    let clock: any TimeSource
    /// Whether disabling an endpoint enqueues the admins' notice
    /// (`WebhookEndpointNotice`): only when something will send it.
    let mails: Bool
    let load: EndpointLoad

    public init(storage: StorageAccess, http: CapabilityHandle<OutboundHTTP>,
                authenticator: CapabilityHandle<MessageAuthenticator>, random: CapabilityHandle<SecureRandom>,
                clock: any TimeSource, settings: WebhookSettings = WebhookSettings(),
                counters: WebhookDeliveryCounters = WebhookDeliveryCounters(), mails: Bool = false) {
        self.storage = storage
        self.http = http
        self.authenticator = authenticator
        self.random = random
        self.clock = clock
        self.settings = settings
        self.counters = counters
        self.mails = mails
        load = EndpointLoad(limit: settings.endpointConcurrency)
    }

    public func activate() async throws {}

    public func deactivate() async {
        http.current.close()
    }

    /// Now, by the clock capability, in milliseconds since 1970.
    nonisolated var now: Int64 { clock.millisecondsSince1970() }

    /// The most attempts a delivery's log shows.
    static let attemptsShown = 100
}
