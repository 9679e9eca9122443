/// An address of the merchant's systems that events are sent to, managed by
/// admins: the types it is sent (none named: every type), whether it is
/// enabled, and how its deliveries have gone lately. Its secret is not
/// part of it: shown once when made or rotated, kept by the webhooks
/// client to sign with.
public struct WebhookEndpoint: Hashable, Sendable {
    public static let maxURLLength = 2000
    public static let maxDescriptionLength = 500

    /// `ep_` and 32 hex digits, ordered by creation.
    public let id: String
    public let url: String
    public let description: String
    /// In the order `WebhookEventType` lists them; empty: every type.
    public let eventTypes: [WebhookEventType]
    public let status: WebhookEndpointStatus
    /// Set while disabled.
    public let disabledReason: WebhookDisabledReason?
    public let createdAt: Timestamp
    public let updatedAt: Timestamp
    /// The first failed attempt since its last success; nil while it succeeds.
    public let failingSince: Timestamp?
    public let lastSuccessAt: Timestamp?
    /// While a rotated-out secret still signs beside the new one: until when.
    public let previousSecretExpiresAt: Timestamp?

    public init(id: String, url: String, description: String, eventTypes: [WebhookEventType],
                status: WebhookEndpointStatus, disabledReason: WebhookDisabledReason?, createdAt: Timestamp,
                updatedAt: Timestamp, failingSince: Timestamp?, lastSuccessAt: Timestamp?,
                previousSecretExpiresAt: Timestamp?) {
        self.id = id
        self.url = url
        self.description = description
        self.eventTypes = eventTypes
        self.status = status
        self.disabledReason = disabledReason
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.failingSince = failingSince
        self.lastSuccessAt = lastSuccessAt
        self.previousSecretExpiresAt = previousSecretExpiresAt
    }

    public var isEnabled: Bool { status == .enabled }

    /// Whether an event of `type` is sent here (while enabled).
    public func receives(_ type: WebhookEventType) -> Bool {
        eventTypes.isEmpty || eventTypes.contains(type)
    }
}
