import Axiom
import AxiomTestSupport
import Glibc
import Testing

@Suite("Sessions")
struct SessionRegistryTests {
    static func registry(_ orchestrator: AxiomOrchestrator, clock: ManualClock, ttl: Duration = .seconds(60),
                         max: Int = 100) -> SessionRegistry<LedgerContext> {
        SessionRegistry(orchestrator: orchestrator, configuration: .init(idleTimeout: ttl, maxSessions: max),
                        clock: clock)
    }

    @Test("a session maps to one root context, created on first use, even under concurrent first use")
    func oneRootPerSession() async throws {
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            let sessions = Self.registry(orchestrator, clock: ManualClock())
            let contexts = try await withThrowingTaskGroup(of: LedgerContext.self) { group in
                for _ in 0..<20 { group.addTask { try await sessions.withSession(SessionID("alpha")) { $0 } } }
                return try await group.reduce(into: [LedgerContext]()) { $0.append($1) }
            }
            #expect(contexts.allSatisfy { $0 === contexts[0] })
            let other = try await sessions.withSession(SessionID("beta")) { $0 }
            #expect(other !== contexts[0])
            #expect(sessions.count == 2)
            #expect(orchestrator.contextRegistry.count == 2)
            #expect(sessions.statistics.created == 2)
        }
    }

    @Test("logout releases the session's context and stops its observations")
    func logoutReleases() async throws {
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            let sessions = Self.registry(orchestrator, clock: ManualClock())
            let context = try await sessions.withSession(SessionID("alpha")) { $0 }
            let ledger = context.ledger.call { $0 }
            #expect(ledger.liveObserverCount == 1)
            #expect(await sessions.end(SessionID("alpha")))
            #expect(await sessions.end(SessionID("alpha")) == false)
            #expect(sessions.count == 0)
            #expect(orchestrator.contextRegistry.count == 0)
            await eventually { ledger.liveObserverCount == 0 }
            #expect(ledger.liveObserverCount == 0)
            // A new use after logout makes a fresh context.
            let again = try await sessions.withSession(SessionID("alpha")) { $0 }
            #expect(again !== context)
        }
    }

    @Test("idle sessions expire after the TTL; used ones do not")
    func ttlEviction() async throws {
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            let clock = ManualClock()
            let sessions = Self.registry(orchestrator, clock: clock, ttl: .seconds(60))
            let idle = try await sessions.withSession(SessionID("idle")) { $0 }
            _ = try await sessions.withSession(SessionID("busy")) { $0 }
            clock.advance(by: .seconds(59))
            #expect(await sessions.evictExpired() == 0)
            _ = try await sessions.withSession(SessionID("busy")) { $0 }
            clock.advance(by: .seconds(1))
            #expect(await sessions.evictExpired() == 1)
            #expect(sessions.contains(SessionID("idle")) == false)
            #expect(sessions.contains(SessionID("busy")))
            #expect(orchestrator.contextRegistry.contains(idle.contextID) == false)
            #expect(sessions.statistics.expired == 1)
            // Lazily, too: an expired session is replaced on its next use.
            clock.advance(by: .seconds(60))
            let busyBefore = try #require(orchestrator.rootContexts.first as? LedgerContext)
            let busyAfter = try await sessions.withSession(SessionID("busy")) { $0 }
            #expect(busyAfter !== busyBefore)
            #expect(orchestrator.contextRegistry.count == 1)
        }
    }

    @Test("the expiry loop releases idle sessions until it is cancelled")
    func expiryLoop() async throws {
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            let clock = ManualClock()
            let sessions = Self.registry(orchestrator, clock: clock, ttl: .seconds(60))
            for name in ["a", "b", "c"] { _ = try await sessions.withSession(SessionID(name)) { $0 } }
            let loop = Task { await sessions.expireIdleSessions(every: .milliseconds(1)) }
            clock.advance(by: .seconds(60))
            // A session leaves the table first, then its context is released.
            await eventually { sessions.count == 0 && orchestrator.contextRegistry.count == 0 }
            #expect(sessions.statistics.expired == 3)
            #expect(orchestrator.contextRegistry.count == 0)
            loop.cancel()
            await loop.value
        }
    }

    @Test("a session in use is never expired or evicted")
    func busySessionsKept() async throws {
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            let clock = ManualClock()
            let sessions = Self.registry(orchestrator, clock: clock, ttl: .seconds(10), max: 1)
            try await sessions.withSession(SessionID("long")) { context in
                clock.advance(by: .seconds(3_600))
                #expect(await sessions.evictExpired() == 0)
                await #expect(throws: AxiomError.sessionCapacityExhausted(limit: 1)) {
                    _ = try await sessions.withSession(SessionID("other")) { $0 }
                }
                #expect(orchestrator.contextRegistry.contains(context.contextID))
            }
            // Its idle time starts when the request ends.
            clock.advance(by: .seconds(9))
            #expect(await sessions.evictExpired() == 0)
            clock.advance(by: .seconds(1))
            #expect(await sessions.evictExpired() == 1)
        }
    }

    @Test("a use begun with beginUse keeps the session until it ends, or until it is dropped")
    func heldSessionsKept() async throws {
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            let clock = ManualClock()
            let sessions = Self.registry(orchestrator, clock: clock, ttl: .seconds(10), max: 2)
            let use = try await sessions.beginUse(SessionID("stream"))
            var dropped: SessionUse<LedgerContext>? = try await sessions.beginUse(SessionID("dropped"))
            #expect(dropped?.context !== use.context)
            clock.advance(by: .seconds(3_600))
            #expect(await sessions.evictExpired() == 0)
            await #expect(throws: AxiomError.sessionCapacityExhausted(limit: 2)) {
                _ = try await sessions.withSession(SessionID("other")) { $0 }
            }
            // The same session used meanwhile is the same context.
            #expect(try await sessions.withSession(SessionID("stream")) { $0 } === use.context)
            use.end()
            use.end()  // twice is harmless: the session is not "more idle"
            dropped = nil
            clock.advance(by: .seconds(10))
            #expect(await sessions.evictExpired() == 2)
            #expect(orchestrator.contextRegistry.count == 0)
            // Logout ends a session in use at once; its use ending later is harmless.
            let held = try await sessions.beginUse(SessionID("held"))
            #expect(await sessions.end(SessionID("held")))
            #expect(orchestrator.contextRegistry.contains(held.context.contextID) == false)
            held.end()
            #expect(sessions.count == 0)
        }
    }

    @Test("at the cap, a new session evicts the one idle for longest")
    func capEvictsOldestIdle() async throws {
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            let clock = ManualClock()
            let sessions = Self.registry(orchestrator, clock: clock, ttl: .seconds(3_600), max: 3)
            for name in ["a", "b", "c"] {
                _ = try await sessions.withSession(SessionID(name)) { $0 }
                clock.advance(by: .seconds(1))
            }
            _ = try await sessions.withSession(SessionID("a")) { $0 }  // "b" is now the oldest idle
            clock.advance(by: .seconds(1))
            _ = try await sessions.withSession(SessionID("d")) { $0 }
            #expect(sessions.count == 3)
            #expect(sessions.contains(SessionID("b")) == false)
            #expect(["a", "c", "d"].allSatisfy { sessions.contains(SessionID($0)) })
            _ = try await sessions.withSession(SessionID("e")) { $0 }
            #expect(sessions.contains(SessionID("c")) == false)
            #expect(sessions.statistics.evicted == 2)
            #expect(orchestrator.contextRegistry.count == 3)
        }
    }

    @Test("a sharded table never passes its cap: each shard evicts its own oldest idle, and the counts add up")
    func shardedCapHolds() async throws {
        #expect(SessionRegistry<LedgerContext>.Configuration(idleTimeout: .seconds(1), maxSessions: 100_000).shards == 16)
        #expect(SessionRegistry<LedgerContext>.Configuration(idleTimeout: .seconds(1), maxSessions: 1_000).shards == 1)
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            let clock = ManualClock()
            let cap = 64
            let sessions = SessionRegistry<LedgerContext>(
                orchestrator: orchestrator,
                configuration: .init(idleTimeout: .seconds(3_600), maxSessions: cap, shards: 4), clock: clock)
            let made = cap + 32
            for index in 0..<made {
                _ = try await sessions.withSession(SessionID("s\(index)")) { $0 }
                clock.advance(by: .milliseconds(1))
            }
            let statistics = sessions.statistics
            #expect(sessions.count <= cap)
            #expect(statistics.created == made)
            #expect(statistics.evicted > 0)
            #expect(statistics.evicted == made - sessions.count)
            #expect(statistics.live == sessions.count)
            #expect(orchestrator.contextRegistry.count == sessions.count)
            // The newest session is always kept: a shard evicts before it adds.
            #expect(sessions.contains(SessionID("s\(made - 1)")))
            clock.advance(by: .seconds(3_600))
            #expect(await sessions.evictExpired() == statistics.live)
            #expect(sessions.count == 0 && orchestrator.contextRegistry.count == 0)
        }
    }

    @Test("a released session leaves no context and no edge in the DAG")
    func releaseRemovesEdges() async throws {
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            let clock = ManualClock()
            let sessions = SessionRegistry<NodeContext>(orchestrator: orchestrator,
                                                        configuration: .init(idleTimeout: .seconds(5), maxSessions: 10),
                                                        clock: clock)
            let root = try await sessions.withSession(SessionID("alpha")) { $0 }
            let child = try await root.send(.addChild)
            _ = try await child.send(.addChild)
            _ = try await root.send(.addChild)
            let other = try await sessions.withSession(SessionID("beta")) { $0 }
            _ = try await other.send(.addChild)
            #expect(orchestrator.contextRegistry.count == 6)
            #expect(orchestrator.contextRegistry.edgeCount == 4)
            #expect(await sessions.end(SessionID("alpha")))
            #expect(orchestrator.contextRegistry.count == 2)
            #expect(orchestrator.contextRegistry.edgeCount == 1)
            clock.advance(by: .seconds(5))
            #expect(await sessions.evictExpired() == 1)
            #expect(orchestrator.contextRegistry.count == 0)
            #expect(orchestrator.contextRegistry.edgeCount == 0)
            #expect(orchestrator.validate().passed)
        }
    }

    @Test("creating and releasing 100,000 sessions leaves resident memory where it started")
    func hundredThousandSessions() async throws {
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            let clock = ManualClock()
            let sessions = Self.registry(orchestrator, clock: clock, ttl: .seconds(30), max: 1_000)
            let ledger = try await sessions.withSession(SessionID("warm-up")) { $0 }.ledger.call { $0 }
            await sessions.end(SessionID("warm-up"))

            func churn(_ range: Range<Int>) async throws {
                for index in range {
                    let id = SessionID("session-\(index)")
                    _ = try await sessions.withSession(id) { $0 }
                    switch index % 3 {
                    case 0: await sessions.end(id)                  // logout
                    case 1: clock.advance(by: .seconds(31))         // expiry
                            await sessions.evictExpired()
                    default: break                                  // left to the cap
                    }
                }
                await eventually { ledger.liveObserverCount == sessions.count }
            }
            try await churn(0..<5_000)
            let before = try residentBytes()
            try await churn(5_000..<105_000)
            let after = try residentBytes()
            let growth = after - before
            print("RSS before \(before / 1024) KiB, after \(after / 1024) KiB, growth \(growth / 1024) KiB")
            #expect(growth < 4 << 20, "resident memory grew by \(growth / 1024) KiB")
            #expect(sessions.count <= 1_000)
            #expect(orchestrator.contextRegistry.count == sessions.count)
            #expect(sessions.statistics.created == 100_001 + 5_000)
        }
    }
}
