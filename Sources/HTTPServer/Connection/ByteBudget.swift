/// One allowance of bytes shared by every connection: request body bytes
/// are reserved against it as they arrive and released when their
/// exchange ends, so what attackers can make the server buffer is bounded
/// by the budget, not by connections × `maxBodyBytes`.
struct ByteBudget: Sendable, Equatable {
    let limit: Int
    private(set) var reserved = 0

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes `count` bytes if they fit; false (and nothing taken) if not.
    mutating func reserve(_ count: Int) -> Bool {
        guard count <= limit - reserved else { return false }
        reserved += count
        return true
    }

    var available: Int { limit - reserved }

    mutating func release(_ count: Int) {
        precondition(count <= reserved, "released more body bytes than were reserved")
        reserved -= count
    }
}
