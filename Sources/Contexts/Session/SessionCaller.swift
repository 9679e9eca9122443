import Axiom
import Domain
import Synchronization

/// Who is calling in one session: set as each of the session's requests
/// enters (`SessionContext.enter`) and read by its feature contexts, so a
/// feature acts for its caller without being told who that is. Refreshed
/// on every request, so a role or status changed since the last one shows
/// at once; the lock is what lets concurrent requests of one session (two
/// tabs, pipelined requests) write and read it.
public final class SessionCaller: Sendable {
    private let latest = Mutex<Authentication?>(nil)

    init() {}

    func enter(_ caller: Authentication) {
        latest.withLock { $0 = caller }
    }

    /// The caller as of the session's latest request (`invalid_token`
    /// before its first, which cannot reach a feature).
    var current: Authentication {
        get throws {
            guard let caller = latest.withLock({ $0 }) else { throw AuthenticationError.invalidToken }
            return caller
        }
    }

    /// The caller of the session `creation`'s context is made in: its
    /// upstream's (the session's context, or another feature of it).
    static func of(_ creation: ContextCreation) throws -> SessionCaller {
        guard let upstream = creation.upstream as? any SessionFeature else {
            throw AxiomError.undeclaredDownstream(upstream: creation.upstream.map { String(reflecting: type(of: $0)) } ?? "no context",
                                                  downstream: "a session feature")
        }
        return upstream.caller
    }
}
