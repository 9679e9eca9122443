import Axiom
import AxiomTestSupport
import Capabilities
import Domain
import Foundation
import Testing
@testable import UserClient

/// Issue 13's rules of the users client across processes: three client
/// instances on one database (`UserReplicas`), each with its own memory,
/// as three server processes behind a balancer.
@Suite struct UserReplicaTests {
    static let password = "correct horse battery"
    static let alice = NewUserRequest(name: "Alice", email: "alice@example.com", password: password)

    /// How attempts ended: wrong password, or refused with a back-off.
    private enum Attempt: Equatable { case wrong, refused(Int) }

    private func attempt(_ client: UserClient, from address: String) async throws -> Attempt {
        do {
            _ = try await client.login(email: "alice@example.com", password: "wrong password!", clientAddress: address)
            Issue.record("a wrong password signed in")
            return .wrong
        } catch AuthenticationError.invalidCredentials {
            return .wrong
        } catch AuthenticationError.tooManyAttempts(let seconds) {
            return .refused(seconds)
        }
    }

    /// Before: each replica counted its own failures in memory, so 15
    /// guesses spread over three replicas were all admitted (5 each).
    @Test(arguments: StorageBackend.all)
    func wrongPasswordsSpreadOverThreeReplicasAreThrottledByTheirTotal(backend: StorageBackend) async throws {
        try await UserReplicas.run(3, backend: backend) { replicas in
            let clients = replicas.clients
            _ = try await clients[0].register(Self.alice)
            // 15 at once from one address, five to each replica.
            let outcomes = try await withThrowingTaskGroup(of: Attempt.self) { group in
                for index in 0..<15 {
                    group.addTask { try await self.attempt(clients[index % 3], from: "10.0.0.1") }
                }
                return try await group.reduce(into: [Attempt]()) { $0.append($1) }
            }
            // The pair's five free failures in total, whichever replica
            // counted them; the rest wait the first back-off step.
            #expect(outcomes.filter { $0 == .wrong }.count == 5)
            #expect(outcomes.filter { $0 == .refused(1) }.count == 10)
            // The owner at a clean address is not held, on any replica.
            _ = try await clients[2].login(email: "alice@example.com", password: Self.password, clientAddress: "192.168.1.20")
            // After the back-off one more guess is admitted (on another
            // replica), and the sixth failure doubles the wait everywhere.
            replicas.clock.advance(by: .seconds(1))
            #expect(try await attempt(clients[1], from: "10.0.0.1") == .wrong)
            #expect(try await attempt(clients[0], from: "10.0.0.1") == .refused(2))
            #expect(try await attempt(clients[2], from: "10.0.0.1") == .refused(2))
        }
    }

    /// Before: a success gave the attempt back only in the replica that saw
    /// it, and the others kept counting the old failures.
    @Test(arguments: StorageBackend.all)
    func aSuccessOnOneReplicaEndsThePairsRunOnAll(backend: StorageBackend) async throws {
        let policy = LoginThrottle.Policy(pairFreeFailures: 3)
        try await UserReplicas.run(3, backend: backend, throttle: policy) { replicas in
            let clients = replicas.clients
            _ = try await clients[0].register(Self.alice)
            #expect(try await attempt(clients[0], from: "home") == .wrong)
            #expect(try await attempt(clients[1], from: "home") == .wrong)
            _ = try await clients[2].login(email: "alice@example.com", password: Self.password, clientAddress: "home")
            // Three free tries again, spread over the replicas, then the wait.
            for client in [clients[2], clients[0], clients[1]] {
                #expect(try await attempt(client, from: "home") == .wrong)
            }
            #expect(try await attempt(clients[2], from: "home") == .refused(1))
        }
    }

    /// Before: tickets lived in the memory of the replica that minted them,
    /// so the stream had to reach that replica (sticky sessions).
    @Test(arguments: StorageBackend.all)
    func aTicketMintedOnOneReplicaOpensOneStreamOnAnyReplica(backend: StorageBackend) async throws {
        try await UserReplicas.run(3, backend: backend) { replicas in
            let clients = replicas.clients
            _ = try await clients[0].register(Self.alice)
            let session = try await clients[0].login(email: "alice@example.com", password: Self.password, clientAddress: "a")
            let first = try await clients[0].issueEventTicket(token: session.token)
            #expect(try await clients[1].redeemEventTicket(first.ticket).sessionID == session.sessionID)
            await #expect(throws: AuthenticationError.invalidTicket) { _ = try await clients[2].redeemEventTicket(first.ticket) }

            // One ticket presented to all three at once: one stream.
            let second = try await clients[1].issueEventTicket(token: session.token)
            let opened = await withTaskGroup(of: Bool.self) { group in
                for client in clients {
                    group.addTask { (try? await client.redeemEventTicket(second.ticket)) != nil }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(opened == 1)

            // A sign-out on one replica voids the session's tickets on all.
            let third = try await clients[2].issueEventTicket(token: session.token)
            _ = try await clients[0].logout(sessionID: session.sessionID)
            await #expect(throws: AuthenticationError.invalidTicket) { _ = try await clients[1].redeemEventTicket(third.ticket) }
            #expect(try await clients[2].heldEventTickets() == 0)
        }
    }

    /// Sessions are rows: a sign-out, password change or suspension
    /// acknowledged by replica A is refused by replica B as soon as B's
    /// working set no longer holds the token (evicted here with a working
    /// set of one; the change feed makes B forget it at once).
    @Test(arguments: StorageBackend.all)
    func aRevocationOnOneReplicaIsRefusedByAnotherOnceItsCacheLetsGo(backend: StorageBackend) async throws {
        try await UserReplicas.run(2, backend: backend, cacheEntries: 1) { replicas in
            let (a, b) = (replicas.clients[0], replicas.clients[1])
            let alice = try await a.register(Self.alice)
            _ = try await a.register(NewUserRequest(name: "Bob", email: "bob@example.com", password: Self.password))
            let bob = try await a.login(email: "bob@example.com", password: Self.password, clientAddress: "b")
            var sessions: [AuthenticatedSession] = []
            for address in ["1", "2", "3"] {
                sessions.append(try await a.login(email: "alice@example.com", password: Self.password, clientAddress: address))
            }
            /// B checks `token`, then Bob's twice (a full working set keeps a
            /// session read from storage on its second read), which evicts it.
            func checkedOnBThenEvicted(_ token: String) async throws {
                _ = try await b.authenticate(token: token)
                _ = try await b.authenticate(token: bob.token)
                _ = try await b.authenticate(token: bob.token)
            }

            try await checkedOnBThenEvicted(sessions[0].token)
            _ = try await a.logout(sessionID: sessions[0].sessionID)
            await #expect(throws: AuthenticationError.invalidToken) { _ = try await b.authenticate(token: sessions[0].token) }

            try await checkedOnBThenEvicted(sessions[2].token)
            let patch = UserProfilePatch(password: "a new horse battery", currentPassword: Self.password)
            _ = try await a.updateProfile(alice.id, patch, keepingSession: sessions[1].sessionID)
            await #expect(throws: AuthenticationError.invalidToken) { _ = try await b.authenticate(token: sessions[2].token) }

            try await checkedOnBThenEvicted(sessions[1].token)
            _ = try await a.adminUpdate(alice.id, UserAdminPatch(status: .suspended))
            await #expect(throws: AuthenticationError.invalidToken) { _ = try await b.authenticate(token: sessions[1].token) }
            #expect(try await b.authenticate(token: bob.token).user.email.normalized == "bob@example.com")
        }
    }

    /// The throttle's and the tickets' tables hold what their windows
    /// need: the expiry sweep (any replica's) deletes runs whose window
    /// passed, trust whose period passed and tickets that expired.
    @Test(arguments: StorageBackend.all)
    func theSweepForgetsRunsPastTheirWindowAndExpiredTickets(backend: StorageBackend) async throws {
        let policy = LoginThrottle.Policy(windowSeconds: 60, trustPeriodSeconds: 120)
        try await UserReplicas.run(2, backend: backend, throttle: policy) { replicas in
            let clients = replicas.clients
            _ = try await clients[0].register(Self.alice)
            for address in ["1", "2", "3"] { #expect(try await attempt(clients[0], from: address) == .wrong) }
            let session = try await clients[1].login(email: "alice@example.com", password: Self.password, clientAddress: "4")
            _ = try await clients[1].issueEventTicket(token: session.token)
            func count(_ table: String) async throws -> Int64 {
                try await replicas.storages[0].readTransaction {
                    try $0.queryOne("SELECT COUNT(*) AS n FROM \(table)")?.get("n") ?? 0
                }
            }
            #expect(try await count("login_runs") > 0)
            #expect(try await count("login_trusted") == 1)
            #expect(try await count("event_tickets") == 1)
            replicas.clock.advance(by: .seconds(60))
            _ = try await clients[1].removeExpiredSessions()
            #expect(try await count("login_runs") == 0)
            #expect(try await count("login_trusted") == 1)
            #expect(try await count("event_tickets") == 0)
            replicas.clock.advance(by: .seconds(60))
            _ = try await clients[0].removeExpiredSessions()
            #expect(try await count("login_trusted") == 0)
        }
    }

    /// A replica whose database connection is gone cannot count a sign-in
    /// attempt, so it refuses it (503 `storage_unavailable`: it could not
    /// read the user either) instead of letting it through uncounted; the
    /// other replicas' counts are untouched by it.
    @Test(arguments: StorageBackend.all)
    func aReplicaWithoutItsDatabaseRefusesSignInAndCountsNothing(backend: StorageBackend) async throws {
        let policy = LoginThrottle.Policy(pairFreeFailures: 3)
        try await UserReplicas.run(2, backend: backend, throttle: policy) { replicas in
            let clients = replicas.clients
            _ = try await clients[0].register(Self.alice)
            await replicas.storages[1].close()
            for password in ["wrong password!", Self.password] {
                do {
                    _ = try await clients[1].login(email: "alice@example.com", password: password, clientAddress: "home")
                    Issue.record("signed in without a database")
                } catch AxiomError.capabilityUnavailable {
                    // 503 storage_unavailable at the HTTP layer.
                }
            }
            for _ in 0..<3 { #expect(try await attempt(clients[0], from: "home") == .wrong) }
            #expect(try await attempt(clients[0], from: "home") == .refused(1))
        }
    }
}
