import AxiomTestSupport
import Capabilities
import Domain
import Foundation
import Testing
@testable import UserClient

/// The users working set (issue 12): one user and one session held (bound
/// 1), so every other one is evicted, and the answers are still storage's.
@Suite(.serialized) struct UserWorkingSetTests {
    static let password = "correct horse battery"

    func register(_ run: UserRun, _ name: String) async throws -> User {
        try await run.client.register(NewUserRequest(name: name, email: "\(name)@example.com", password: Self.password))
    }

    @Test(arguments: StorageBackend.all) func aUserChangedWhileEvictedIsReadFresh(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let database = try await backend.database(at: directory.databasePath)
        let run = try await UserRun.start(database, backend: backend, cacheEntries: 1)
        let ann = try await register(run, "ann")
        let bob = try await register(run, "bob")
        #expect(await run.client.cachedUserCount == 1)
        _ = try await run.client.adminUpdate(ann.id, UserAdminPatch(status: UserStatus.suspended))
        _ = try await run.client.user(bob.id)  // evicts ann again
        #expect(try await run.client.user(ann.id).status == .suspended)
        _ = try await run.client.updateProfile(ann.id, UserProfilePatch(name: "Ann B."))
        _ = try await run.client.user(bob.id)
        let fresh = try await run.client.user(ann.id)
        #expect(fresh.name == "Ann B." && fresh.status == .suspended)
        // The email index decides duplicates, not the working set.
        await #expect(throws: EntityError.self) {
            _ = try await run.client.register(NewUserRequest(name: "x", email: "ANN@example.com", password: Self.password))
        }
        let byCreation = [ann, bob].sorted { ($0.createdAt, $0.id.description) < ($1.createdAt, $1.id.description) }
        let page = try await run.client.users(limit: 1, after: nil)
        #expect(page.items.map(\.id) == [byCreation[0].id])
        let last = try await run.client.users(limit: 1, after: page.nextCursor)
        #expect(last.items.map(\.id) == [byCreation[1].id] && last.nextCursor == nil)
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func aRevokedSessionIsRefusedAfterEvictionAndAfterARestart(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let database = try await backend.database(at: directory.databasePath)
        var run = try await UserRun.start(database, backend: backend, cacheEntries: 1)
        let ann = try await register(run, "ann")
        let loggedOut = try await run.client.login(email: "ann@example.com", password: Self.password, clientAddress: "a")
        let changed = try await run.client.login(email: "ann@example.com", password: Self.password, clientAddress: "a")
        let kept = try await run.client.login(email: "ann@example.com", password: Self.password, clientAddress: "a")
        #expect(await run.client.liveSessionCount == 1)
        // Evicted, then revoked: by logout, and by a password change (which
        // must also end the evicted session's streams).
        let ended = run.client.stateBroadcaster.subscribe(key: changed.sessionID)
        _ = try await run.client.logout(sessionID: loggedOut.sessionID)
        _ = try await run.client.updateProfile(ann.id, UserProfilePatch(password: "another long secret",
                                                                        currentPassword: Self.password),
                                               keepingSession: kept.sessionID)
        // Published before updateProfile returned, so buffered.
        let heard = await firstElement(of: ended)
        #expect(heard == .sessionEnded(sessionID: changed.sessionID))
        for token in [loggedOut.token, changed.token] {
            await #expect(throws: AuthenticationError.invalidToken) { _ = try await run.client.authenticate(token: token) }
        }
        #expect(try await run.client.authenticate(token: kept.token).sessionID == kept.sessionID)
        await run.stop()

        run = try await UserRun.start(database, backend: backend, cacheEntries: 1)
        for token in [loggedOut.token, changed.token] {
            await #expect(throws: AuthenticationError.invalidToken) { _ = try await run.client.authenticate(token: token) }
        }
        #expect(try await run.client.authenticate(token: kept.token).user.id == ann.id)
        // Suspension revokes the session that is held now.
        _ = try await run.client.adminUpdate(ann.id, UserAdminPatch(status: UserStatus.suspended))
        await #expect(throws: AuthenticationError.invalidToken) { _ = try await run.client.authenticate(token: kept.token) }
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func aStartOnAFileWithManyUsersAndSessionsHoldsNone(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let database = try await backend.database(at: directory.databasePath)
        var run = try await UserRun.start(database, backend: backend)
        var tokens: [String] = []
        for index in 0..<60 {
            _ = try await register(run, "user\(index)")
            tokens.append(try await run.client.login(email: "user\(index)@example.com", password: Self.password,
                                                     clientAddress: "a").token)
        }
        #expect(await run.client.cachedUserCount == 60)
        await run.stop()

        run = try await UserRun.start(database, backend: backend, cacheEntries: 10)
        #expect(await run.client.cachedUserCount == 0)
        #expect(await run.client.liveSessionCount == 0)
        for token in tokens { _ = try await run.client.authenticate(token: token) }
        #expect(await run.client.cachedUserCount == 10)
        #expect(await run.client.liveSessionCount == 10)
        await run.stop()
    }
}
