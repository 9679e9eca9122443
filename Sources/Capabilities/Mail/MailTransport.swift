import Synchronization

/// SMTP submission as a capability: sends `MailMessage`s to one server
/// (`MailTransportSettings`), keeping connections open between messages.
///
/// A send takes a kept connection (RSET first; one found dead is replaced
/// once by a new connection) or opens one, runs one transaction, and keeps
/// the connection for the next unless it broke. At most `maxConnections`
/// are open; further sends wait their turn, so concurrent sends never
/// share a connection. Errors: `MailRejected` (a 5xx to the message, final)
/// and `MailMessageError` (the message itself is unsendable, final) are
/// `PermanentFailure`s; `MailTransportError` (network, TLS, timeouts, 4xx,
/// a refused session) is worth retrying later.
public final class MailTransport: Sendable {
    public let settings: MailTransportSettings
    private let tls: TLSClientContext?
    private let turns: AsyncLimiter
    private let kept = Mutex<[SMTPSession]>([])
    private let reachable = Atomic<Bool>(true)

    /// Loads the CA store (or `caFile`) for the TLS modes; a missing or bad
    /// file throws here, at start-up, not at the first send.
    public init(_ settings: MailTransportSettings) throws(NetError) {
        self.settings = settings
        self.tls = settings.security == .none ? nil : try TLSClientContext(caFile: settings.caFile)
        self.turns = AsyncLimiter(limit: settings.maxConnections)
    }

    /// Sends `message`; the receipt is the server's acceptance.
    public func send(_ message: MailMessage) async throws -> MailReceipt {
        let mail = try MailMessageEncoder.encode(message)
        await turns.acquire()
        defer { turns.release() }
        if var session = takeKept() {
            do {
                try await session.reset()
            } catch {
                // The kept connection cannot start a transaction (the
                // server closed it while idle, or answered 421): one new one.
                session.connection.close()
                return try await deliver(mail, over: try await openSession())
            }
            return try await deliver(mail, over: session)
        }
        return try await deliver(mail, over: try await openSession())
    }

    /// Sends QUIT on every kept connection and closes it.
    public func close() async {
        let sessions = kept.withLock { sessions in
            defer { sessions.removeAll() }
            return sessions
        }
        for var session in sessions { await session.quit() }
    }

    // MARK: Capability

    /// False after a connection to the server failed, until one succeeds.
    public var isAvailable: Bool { reachable.load(ordering: .acquiring) }

    /// Opens (and keeps) a connection when none is kept: true when the
    /// server answers and accepts the settings.
    public func checkAvailability() async -> Bool {
        await turns.acquire()
        defer { turns.release() }
        guard kept.withLock({ $0.isEmpty }) else { return isAvailable }
        if let session = try? await openSession() { keep(session) }
        return isAvailable
    }

    // MARK: Connections

    private func deliver(_ mail: EncodedMail, over session: SMTPSession) async throws -> MailReceipt {
        var session = session
        do {
            let receipt = try await session.deliver(mail)
            keep(session)
            return receipt
        } catch {
            if session.isBroken { session.connection.close() } else { keep(session) }
            throw error
        }
    }

    private func openSession() async throws -> SMTPSession {
        do {
            let session = try await SMTPSession.open(settings, tls: tls)
            reachable.store(true, ordering: .releasing)
            return session
        } catch let error as MailTransportError {
            if case .connection = error { reachable.store(false, ordering: .releasing) }
            throw error
        }
    }

    /// A kept connection not idle too long; older ones are closed.
    private func takeKept() -> SMTPSession? {
        let (fresh, stale) = kept.withLock { sessions -> (SMTPSession?, [SMTPSession]) in
            let cutoff = ContinuousClock.now.advanced(by: .zero - settings.idleTimeout)
            let stale = sessions.filter { $0.lastUsed < cutoff }
            sessions.removeAll { $0.lastUsed < cutoff }
            return (sessions.popLast(), stale)
        }
        for session in stale { session.connection.close() }
        return fresh
    }

    private func keep(_ session: SMTPSession) {
        var session = session
        session.lastUsed = .now
        kept.withLock { $0.append(session) }
    }
}
