/// What a committed change concerns: the working set a follower must
/// invalidate or refresh for it. Stored as its raw value in `changes.kind`.
public enum ChangeKind: String, Sendable, CaseIterable, Hashable {
    case product
    case stock
    case user
    /// A session ended (sign-out, revocation, expiry sweep): its token must
    /// be refused everywhere.
    case session
    case cart
    case order
    case payment
}
