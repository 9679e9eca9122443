import Domain
import FoundationEssentials

/// The mails an order's own changes cause, enqueued in the transaction of
/// the change when mail is on (`OrderClient(mails:)`): placed, shipped,
/// cancelled. The job names the order; its work reads the order as it is
/// when the mail goes, and decides whether the mail still applies.
public struct OrderMail: Codable, Sendable, Hashable {
    public static let kind = JobKind("order.mail")

    public enum Event: String, Codable, Sendable, Hashable {
        case placed, shipped, cancelled
    }

    public let orderID: OrderID
    public let event: Event

    enum CodingKeys: String, CodingKey {
        case orderID = "order_id"
        case event
    }

    public init(orderID: OrderID, event: Event) {
        self.orderID = orderID
        self.event = event
    }

    /// Each event happens once to an order, so its mail is unique by both.
    func request(at now: Int64) throws -> JobRequest {
        JobRequest(kind: Self.kind, payload: Array(try JSONEncoder().encode(self)),
                   uniqueKey: "\(orderID):\(event.rawValue)", runAt: now)
    }

    /// The payload of a job of this kind.
    public init(job: Job) throws {
        self = try JSONDecoder().decode(Self.self, from: Data(job.payload))
    }
}
