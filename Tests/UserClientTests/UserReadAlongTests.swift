import AxiomTestSupport
import Capabilities
import Domain
import Foundation
import Testing
@testable import UserClient

/// A session read from storage brings its user's row along
/// (`authenticate`); the row is kept in the user's turn only if no user
/// changed after the read began. Here the row handed in is made up (a name
/// storage never held), so which one `user(_:readAlong:)` answers shows
/// whether it kept the row or read storage again.
@Suite(.serialized) struct UserReadAlongTests {
    static let password = "correct horse battery"

    private func start(_ backend: StorageBackend, _ directory: TempDirectory) async throws -> (UserRun, User) {
        let database = try await backend.database(at: directory.databasePath)
        let run = try await UserRun.start(database, backend: backend, cacheEntries: 1)
        let ann = try await run.client.register(NewUserRequest(name: "Ann", email: "ann@example.com", password: Self.password))
        // Bound 1: registering Bob evicts Ann.
        _ = try await run.client.register(NewUserRequest(name: "Bob", email: "bob@example.com", password: Self.password))
        return (run, ann)
    }

    private func madeUp(_ user: User) throws -> UserStore.StoredUser {
        let renamed = User(id: user.id, name: "Read along", email: user.email, role: user.role, status: user.status,
                           createdAt: user.createdAt)
        return UserStore.StoredUser(user: renamed, passwordHash: "unused")
    }

    @Test(arguments: StorageBackend.all) func theRowReadAlongIsKeptWhenNoUserChanged(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let (run, ann) = try await start(backend, directory)
        let before = await run.client.userChanges
        #expect(try await run.client.user(ann.id, readAlong: (try madeUp(ann), before)).name == "Read along")
        // Kept: the next plain read is a hit on it.
        #expect(try await run.client.user(ann.id).name == "Read along")
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func aUserWrittenAfterTheReadIsReadAgain(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let (run, ann) = try await start(backend, directory)
        let before = await run.client.userChanges
        let bob = try await run.client.updateProfile(try #require(await bobID(run)), UserProfilePatch(name: "Bob B."))
        #expect(bob.name == "Bob B.")  // another user's write: it still counts
        #expect(try await run.client.user(ann.id, readAlong: (try madeUp(ann), before)).name == "Ann")
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func aResynchronizationAfterTheReadMakesItReadAgain(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let (run, ann) = try await start(backend, directory)
        let before = await run.client.userChanges
        await run.client.resynchronize()
        #expect(try await run.client.user(ann.id, readAlong: (try madeUp(ann), before)).name == "Ann")
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func anotherReplicasChangeAfterTheReadMakesItReadAgain(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let (run, ann) = try await start(backend, directory)
        let before = await run.client.userChanges
        await run.client.apply(Change(sequence: 1, kind: .user, key: ann.id.description, userID: ann.id.description,
                                      origin: "another replica"))
        #expect(try await run.client.user(ann.id, readAlong: (try madeUp(ann), before)).name == "Ann")
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func aFirstRequestAfterARestartKeepsTheUserReadWithItsSession(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let database = try await backend.database(at: directory.databasePath)
        var run = try await UserRun.start(database, backend: backend)
        let ann = try await run.client.register(NewUserRequest(name: "Ann", email: "ann@example.com", password: Self.password))
        let session = try await run.client.login(email: "ann@example.com", password: Self.password, clientAddress: "a")
        await run.stop()
        run = try await UserRun.start(database, backend: backend)
        #expect(await run.client.cachedUserCount == 0)
        #expect(try await run.client.authenticate(token: session.token).user == ann)
        #expect(await run.client.cachedUserCount == 1)
        await run.stop()
    }

    private func bobID(_ run: UserRun) async -> UserID? {
        try? await run.client.users(limit: 10, after: nil).items.first { $0.name == "Bob" }?.id
    }
}
