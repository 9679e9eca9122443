/// Refusals of the webhooks' admin actions, each with its stable code.
public enum WebhookError: Refusal, Hashable {
    /// Fields of an endpoint failed their checks; every failing field is
    /// listed in `errors`. The code names the field when only one kind
    /// failed: `webhook_url_invalid` (the URL alone), `webhook_event_type_unknown`
    /// (unknown event types alone), else `validation_failed`.
    case invalid(ValidationError)
    /// The URL's host is or resolves to an address the service does not
    /// send to (loopback, private, link-local, unique-local, metadata),
    /// while `webhooks_allow_private` is off.
    case urlRefused(host: String, addresses: [String])
    /// The URL's host resolves to no address.
    case urlUnresolvable(host: String)
    case endpointNotFound(id: String)
    case deliveryNotFound(id: String)
    /// A disabled endpoint is sent nothing: no retry, no replay.
    case endpointDisabled(id: String)

    public var code: String {
        switch self {
        case .invalid(let errors):
            if errors.errors.allSatisfy({ $0.field == "url" }) {
                "webhook_url_invalid"
            } else if errors.errors.allSatisfy({ $0.field.hasPrefix("event_types[") && $0.code == .invalidFormat }) {
                "webhook_event_type_unknown"
            } else {
                errors.code
            }
        case .urlRefused: "webhook_url_refused"
        case .urlUnresolvable: "webhook_url_unresolvable"
        case .endpointNotFound: "webhook_endpoint_not_found"
        case .deliveryNotFound: "webhook_delivery_not_found"
        case .endpointDisabled: "webhook_endpoint_disabled"
        }
    }

    public var category: RefusalCategory {
        switch self {
        case .invalid, .urlRefused, .urlUnresolvable: .invalid
        case .endpointNotFound, .deliveryNotFound: .notFound
        case .endpointDisabled: .conflict
        }
    }

    public var message: String {
        switch self {
        case .invalid(let errors):
            errors.message
        case .urlRefused(let host, let addresses):
            "\(host) is or resolves to \(addresses.joined(separator: ", ")), not a public address (loopback, private, "
                + "link-local, unique-local and metadata addresses are refused while webhooks_allow_private is off)"
        case .urlUnresolvable(let host):
            "\(host) does not resolve to an address"
        case .endpointNotFound(let id):
            "no webhook endpoint with id \(id)"
        case .deliveryNotFound(let id):
            "no webhook delivery with id \(id)"
        case .endpointDisabled(let id):
            "webhook endpoint \(id) is disabled; enable it first (PATCH with status enabled)"
        }
    }

    public var members: [ProblemMember] {
        switch self {
        case .invalid(let errors): errors.members
        case .urlRefused, .urlUnresolvable: [.fieldErrors(name: "errors", [FieldError(field: "url", code: .invalidFormat,
                                                                                      message: message)])]
        default: []
        }
    }
}
