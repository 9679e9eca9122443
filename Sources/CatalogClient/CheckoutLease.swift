/// The lease a process holds on the checkouts it reserves stock for:
/// `owner` names the process (stable across its restarts, so a replica that
/// comes back repairs what its previous life left at once) and `seconds` is
/// how long another process's recovery leaves a reserved checkout alone. A
/// checkout that outlives its lease (a pause longer than it) still ends
/// right: committing a released reservation takes the stock again or
/// refuses (`CatalogStore.commit`).
public struct CheckoutLease: Sendable, Equatable {
    public let owner: String
    public let seconds: Int

    public init(owner: String, seconds: Int) {
        self.owner = owner
        self.seconds = seconds
    }

    public static let `default` = CheckoutLease(owner: "local", seconds: 30)
}
