import Domain

/// `GET /orders/{id}/history`: `{"items":[…]}`, the order's status changes
/// oldest first. The transition table is acyclic, so the list is short
/// and never paged.
struct OrderHistoryJSON: Encodable {
    let items: [OrderHistoryEntry]
}
