/// A new endpoint and its secret, shown this once.
public struct WebhookEndpointCreated: Hashable, Sendable {
    public let endpoint: WebhookEndpoint
    public let secret: String

    public init(endpoint: WebhookEndpoint, secret: String) {
        self.endpoint = endpoint
        self.secret = secret
    }
}
