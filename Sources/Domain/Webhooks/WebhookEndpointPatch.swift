/// An admin's change to an endpoint (`PATCH /admin/webhooks/{id}`): any of
/// url, event_types, description and status; absent fields keep their
/// value. Enabling an endpoint clears its failing streak (its
/// `failing_since`), so it is not disabled again at its next failure.
public struct WebhookEndpointPatch: Sendable, Hashable, Decodable {
    public let url: String?
    public let eventTypes: [String]?
    public let description: String?
    public let status: WebhookEndpointStatus?

    public init(url: String? = nil, eventTypes: [String]? = nil, description: String? = nil,
                status: WebhookEndpointStatus? = nil) {
        self.url = url
        self.eventTypes = eventTypes
        self.description = description
        self.status = status
    }

    enum CodingKeys: String, CodingKey {
        case url
        case eventTypes = "event_types"
        case description
        case status
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = try container.decodeOptionalMember(String.self, forKey: .url)
        eventTypes = try container.decodeOptionalMember([String].self, forKey: .eventTypes)
        description = try container.decodeOptionalMember(String.self, forKey: .description)
        status = try container.decodeOptionalMember(WebhookEndpointStatus.self, forKey: .status)
    }

    /// `endpoint`'s fields with this patch's, every one checked (a URL
    /// left as it is too: `urlProblem` may refuse what an earlier setting
    /// allowed).
    public func applied(to endpoint: WebhookEndpoint,
                        urlProblem: (String) -> String?) throws(WebhookError) -> WebhookEndpointFields {
        try WebhookEndpointFields.checked(url: url ?? endpoint.url,
                                          eventTypes: eventTypes ?? endpoint.eventTypes.map(\.rawValue),
                                          description: description ?? endpoint.description,
                                          status: status ?? endpoint.status, urlProblem: urlProblem)
    }
}
