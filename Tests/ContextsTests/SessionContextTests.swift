import Axiom
import AxiomTestSupport
import Contexts
import Domain
import Foundation
import Synchronization
import Testing

@Suite("Session context")
struct SessionContextTests {
    @Test("each session has its own root context recording who signed in")
    func signInPerSession() async throws {
        try await withOrchestrator { orchestrator in
            try await orchestrator.start()
            let clock = ManualClock()
            let sessions = SessionRegistry<SessionContext>(
                orchestrator: orchestrator, configuration: .init(idleTimeout: .seconds(900), maxSessions: 10),
                clock: clock)
            let alice = try #require(UserID("6f1c1f44-3b1a-4d6e-9a39-0c1d2b7f3e55"))
            let first = try await sessions.withSession(SessionID("one")) { try await $0.send(.signIn(alice)) }
            #expect(first == alice)
            #expect(try await sessions.context(for: SessionID("one")).userID == alice)
            #expect(try await sessions.context(for: SessionID("two")).isSignedIn == false)
            let after = try await sessions.withSession(SessionID("one")) { try await $0.send(.signOut) }
            #expect(after == nil)
            clock.advance(by: .seconds(900))
            #expect(await sessions.evictExpired() == 2)
            #expect(orchestrator.contextRegistry.count == 0)
            #expect(orchestrator.validate().passed)
        }
    }

    @Test("user ids parse only their canonical form and encode as it")
    func userIDs() throws {
        #expect(UserID("not-a-uuid") == nil)
        let id = try #require(UserID("6F1C1F44-3B1A-4D6E-9A39-0C1D2B7F3E55"))
        #expect(id.description == "6f1c1f44-3b1a-4d6e-9a39-0c1d2b7f3e55")
        let json = try JSONEncoder().encode([id])
        #expect(String(decoding: json, as: UTF8.self) == #"["6f1c1f44-3b1a-4d6e-9a39-0c1d2b7f3e55"]"#)
        #expect(try JSONDecoder().decode([UserID].self, from: json) == [id])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([UserID].self, from: Data(#"["x"]"#.utf8)) }
    }
}
