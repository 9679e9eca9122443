/// A provider delivery as read after its signature was checked: an event
/// this server handles, or one it acknowledges and ignores (providers add
/// event types over time).
public enum PaymentNotice: Hashable, Sendable {
    case event(PaymentEvent)
    case unhandled(id: String, type: String)

    public var id: String {
        switch self {
        case .event(let event): event.id
        case .unhandled(let id, _): id
        }
    }
}
