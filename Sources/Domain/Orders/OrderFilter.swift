/// What an admin's order list keeps: orders of one status, of one
/// customer, created in `[createdFrom, createdBefore)`; nil keeps all.
public struct OrderFilter: Hashable, Sendable {
    public let status: OrderStatus?
    public let userID: UserID?
    public let createdFrom: Timestamp?
    public let createdBefore: Timestamp?

    public init(status: OrderStatus? = nil, userID: UserID? = nil, createdFrom: Timestamp? = nil,
                createdBefore: Timestamp? = nil) {
        self.status = status
        self.userID = userID
        self.createdFrom = createdFrom
        self.createdBefore = createdBefore
    }
}
