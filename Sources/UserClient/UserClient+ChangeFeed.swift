import Axiom
import Capabilities
import Domain

/// Another replica changed a user (role, status, email, password) or ended
/// a session (sign-out, revocation by suspension or password change): what
/// this process holds of them is forgotten, so the next request reads the
/// database, which refuses a deleted session. A session's end is published
/// as a local one is, so its `/events` streams here end too.
extension UserClient: ChangeSubscriber {
    public nonisolated var changeKinds: Set<ChangeKind> { [.user, .session] }

    public func apply(_ change: Change) async {
        switch change.kind {
        case .user:
            guard let id = UserID(change.key) else { return }
            users.forget(id)
            verified.forget { $0.user.id == id }
        case .session:
            let sessionID = change.key
            // A miss reading this session right now must not keep it.
            sessions.forget { $0.id == sessionID }
            verified.forget { $0.sessionID == sessionID }
            stateBroadcaster.publish(.sessionEnded(sessionID: sessionID), key: sessionID)
        default:
            return
        }
    }

    public func resynchronize() async {
        users.forgetAll()
        sessions.forgetAll()
        verified.forgetAll()
    }
}

extension ChangeKind {
    public static let user = ChangeKind("user")
    /// A session ended (sign-out, revocation, expiry sweep): its token must be refused everywhere.
    public static let session = ChangeKind("session")
}
