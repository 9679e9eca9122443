import Axiom
import Capabilities
import Domain
import AxiomTestSupport
import Foundation
import Testing
@testable import UserClient

/// Suspension, password changes, admin paging and the sweep of expired
/// sessions, against a real SQLite file.
@Suite(.serialized) struct UserLifecycleTests {
    static let password = "correct horse battery"

    private func sessionCount(_ run: UserRun) async throws -> Int {
        try await run.database.readTransaction { handle in
            try handle.query("SELECT COUNT(*) AS n FROM sessions").map { row -> Int in try row.get("n") }.first ?? -1
        }
    }

    @Test(arguments: StorageBackend.all) func suspensionRevokesEverySessionAndRefusesSignInUntilReactivated(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let database = try await backend.database(at: directory.databasePath)
        let run = try await UserRun.start(database, backend: backend)
        let user = try await run.client.register(NewUserRequest(name: "Sam", email: "sam@example.com", password: Self.password))
        let first = try await run.client.login(email: "sam@example.com", password: Self.password, clientAddress: "a")
        let second = try await run.client.login(email: "sam@example.com", password: Self.password, clientAddress: "b")
        #expect(try await sessionCount(run) == 2)

        let suspended = try await run.client.adminUpdate(user.id, UserAdminPatch(status: UserStatus.suspended))
        #expect(suspended.status == .suspended)
        for token in [first.token, second.token] {
            await #expect(throws: AuthenticationError.invalidToken) { _ = try await run.client.authenticate(token: token) }
        }
        #expect(try await sessionCount(run) == 0)
        await #expect(throws: AuthenticationError.invalidCredentials) {
            _ = try await run.client.login(email: "sam@example.com", password: Self.password, clientAddress: "a")
        }
        _ = try await run.client.adminUpdate(user.id, UserAdminPatch(status: UserStatus.active))
        let again = try await run.client.login(email: "sam@example.com", password: Self.password, clientAddress: "a")
        #expect(try await run.client.authenticate(token: again.token).user.id == user.id)
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func aPasswordChangeNeedsTheCurrentOneAndSurvivesARestart(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let database = try await backend.database(at: directory.databasePath)
        var run = try await UserRun.start(database, backend: backend)
        let user = try await run.client.register(NewUserRequest(name: "Pat", email: "pat@example.com", password: Self.password))
        await #expect(throws: AuthenticationError.invalidCredentials) {
            _ = try await run.client.updateProfile(user.id, UserProfilePatch(password: "a brand new secret",
                                                                             currentPassword: "not the password"))
        }
        _ = try await run.client.updateProfile(user.id, UserProfilePatch(password: "a brand new secret",
                                                                         currentPassword: Self.password))
        await run.stop()

        run = try await UserRun.start(database, backend: backend)
        await #expect(throws: AuthenticationError.invalidCredentials) {
            _ = try await run.client.login(email: "pat@example.com", password: Self.password, clientAddress: "a")
        }
        let session = try await run.client.login(email: "pat@example.com", password: "a brand new secret", clientAddress: "a")
        #expect(session.user.id == user.id)
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func adminsPage250UsersWithoutGapsOrRepeats(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let database = try await backend.database(at: directory.databasePath)
        let run = try await UserRun.start(database, backend: backend)
        var registered: [User] = []
        for index in 0..<250 {
            registered.append(try await run.client.register(NewUserRequest(name: "U\(index)", email: "u\(index)@example.com",
                                                                            password: Self.password)))
        }
        // Creation order; users made in the same millisecond by id.
        let expected = registered.sorted {
            ($0.createdAt.millisecondsSince1970, $0.id.description) < ($1.createdAt.millisecondsSince1970, $1.id.description)
        }.map(\.id)
        var seen: [UserID] = []
        var cursor: String?
        var pages = 0
        repeat {
            let page = try await run.client.users(limit: 100, after: cursor)
            seen += page.items.map(\.id)
            cursor = page.nextCursor
            pages += 1
        } while cursor != nil && pages < 10
        #expect(pages == 3)
        #expect(seen.count == 250)
        #expect(Set(seen).count == 250)
        #expect(seen == expected, "pages are not in creation order")
        await #expect(throws: ValidationError.self) { _ = try await run.client.users(limit: 101, after: nil) }
        await #expect(throws: ValidationError.self) { _ = try await run.client.users(limit: 10, after: "not-a-cursor") }
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func expiredSessionsAreRemovedFromStorageAndMemory(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let database = try await backend.database(at: directory.databasePath)
        let run = try await UserRun.start(database, backend: backend, sessionLifetime: .seconds(300))
        _ = try await run.client.register(NewUserRequest(name: "Eve", email: "eve@example.com", password: Self.password))
        let expiring = try await run.client.login(email: "eve@example.com", password: Self.password, clientAddress: "a")
        #expect(try await run.client.removeExpiredSessions() == 0)
        #expect(try await sessionCount(run) == 1)
        _ = try await run.client.authenticate(token: expiring.token)
        // The clock moves to the expiry (wall time from the clock
        // capability, issue 11): nothing sleeps.
        run.clock.advance(by: .seconds(300))
        await #expect(throws: AuthenticationError.invalidToken) {
            _ = try await run.client.authenticate(token: expiring.token)
        }
        #expect(run.client.verifiedAuthentication(tokenHash: TokenDigest.sha256Hex(expiring.token)) == nil)
        _ = try await run.client.removeExpiredSessions()
        #expect(try await sessionCount(run) == 0)
        #expect(await run.client.liveSessionCount == 0)
        await run.stop()
    }

    /// The sweep deletes in steps of `sweepStep` rows a table: 2,500
    /// expired sessions (and 1,200 expired tickets of a live one) take
    /// three steps, and none is left behind; the live session and its
    /// live ticket stay.
    @Test(arguments: StorageBackend.all) func aSweepLargerThanOneStepRemovesEveryExpiredRow(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let database = try await backend.database(at: directory.databasePath)
        let run = try await UserRun.start(database, backend: backend)
        let user = try await run.client.register(NewUserRequest(name: "Kim", email: "kim@example.com", password: Self.password))
        let live = try await run.client.login(email: "kim@example.com", password: Self.password, clientAddress: "a")
        let userID = user.id.description
        try await run.database.writeTransaction { handle in
            for n in 0..<2_500 {
                try handle.execute("""
                    INSERT INTO sessions(id, user_id, token_hash, created_at, expires_at) VALUES(?, ?, ?, 1, 2)
                    """, "expired-\(n)", userID, "hash-\(n)")
            }
            let liveSession: String = try handle.queryOne("SELECT id FROM sessions WHERE expires_at > 2")!.get("id")
            for n in 0..<1_201 {
                try handle.execute("""
                    INSERT INTO event_tickets(ticket_hash, session_id, token_hash, expires_at) VALUES(?, ?, 'x', ?)
                    """, "ticket-\(n)", liveSession, n == 0 ? Int64.max : 2)
            }
        }
        #expect(try await sessionCount(run) == 2_501)
        _ = try await run.client.removeExpiredSessions()
        #expect(try await sessionCount(run) == 1)
        let tickets = try await run.database.readTransaction { handle in
            try handle.query("SELECT ticket_hash FROM event_tickets").map { row -> String in try row.get("ticket_hash") }
        }
        #expect(tickets == ["ticket-0"])
        #expect(try await run.client.authenticate(token: live.token).user.id == user.id)
        await run.stop()
    }
}
