/// A new endpoint as an admin submits it (`POST /admin/webhooks`): its URL,
/// the event types it is sent (left out or empty: every type) and a
/// description for admins (default empty). It starts enabled.
public struct WebhookEndpointDraft: Sendable, Hashable, Decodable {
    public let url: String
    /// As submitted: an unknown name is refused by `checked`, naming it.
    public let eventTypes: [String]
    public let description: String

    public init(url: String, eventTypes: [String] = [], description: String = "") {
        self.url = url
        self.eventTypes = eventTypes
        self.description = description
    }

    enum CodingKeys: String, CodingKey {
        case url
        case eventTypes = "event_types"
        case description
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = try container.decode(String.self, forKey: .url)
        eventTypes = try container.decodeOptionalMember([String].self, forKey: .eventTypes) ?? []
        description = try container.decodeOptionalMember(String.self, forKey: .description) ?? ""
    }

    /// The endpoint's fields, or every failing one (`WebhookError.invalid`);
    /// `urlProblem` says what is wrong with a URL the webhooks client would
    /// not send to (it does not parse, or its scheme is not allowed), nil
    /// when nothing is.
    public func checked(urlProblem: (String) -> String?) throws(WebhookError) -> WebhookEndpointFields {
        try WebhookEndpointFields.checked(url: url, eventTypes: eventTypes, description: description,
                                          status: .enabled, urlProblem: urlProblem)
    }
}
