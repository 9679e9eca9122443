/// An endpoint's settable fields once every one passed its checks: what a
/// draft makes and a patch leaves.
public struct WebhookEndpointFields: Sendable, Hashable {
    public let url: String
    public let eventTypes: [WebhookEventType]
    public let description: String
    public let status: WebhookEndpointStatus

    public init(url: String, eventTypes: [WebhookEventType], description: String, status: WebhookEndpointStatus) {
        self.url = url
        self.eventTypes = eventTypes
        self.description = description
        self.status = status
    }

    /// The most types a request may name (each counts, repeats too).
    static let maxEventTypesNamed = 100

    /// Every failing field of `url`, `eventTypes` and `description`, or
    /// the fields they make.
    static func checked(url: String, eventTypes names: [String], description: String, status: WebhookEndpointStatus,
                        urlProblem: (String) -> String?) throws(WebhookError) -> WebhookEndpointFields {
        var errors = ValidationError()
        WebhookEndpoint.checkURL(url, urlProblem: urlProblem, into: &errors)
        var types: [WebhookEventType] = []
        if names.count > maxEventTypesNamed {
            errors.add("event_types", .tooLong, "event_types names at most \(maxEventTypesNamed) types")
        } else {
            types = WebhookEndpoint.eventTypes(names, into: &errors)
        }
        let text = WebhookEndpoint.normalizedDescription(description)
        WebhookEndpoint.checkDescription(text, into: &errors)
        guard errors.isEmpty else { throw .invalid(errors) }
        return WebhookEndpointFields(url: url, eventTypes: types, description: text, status: status)
    }
}
