import Synchronization

/// How the sign-in throttle decided so far, readable without entering the
/// users client (for `/metrics`, as the `login` policy of the rate-limit
/// series): an attempt admitted, or refused with a back-off.
public final class LoginThrottleCounts: Sendable {
    private let allowedCount = Atomic<Int>(0)
    private let refusedCount = Atomic<Int>(0)

    public init() {}

    public var allowed: Int { allowedCount.load(ordering: .relaxed) }
    public var refused: Int { refusedCount.load(ordering: .relaxed) }

    func record(refused: Bool) {
        if refused {
            refusedCount.add(1, ordering: .relaxed)
        } else {
            allowedCount.add(1, ordering: .relaxed)
        }
    }
}
