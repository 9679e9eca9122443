import AxiomTestSupport
import Capabilities
import Domain
import Foundation
import Testing
@testable import UserClient

/// A session read from storage brings its user's row along
/// (`authenticate`); the row is kept as a miss's row is: never over a newer
/// version, and not after the user was forgotten since the read began. Here the row handed in is made up (a name
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

    @Test(arguments: StorageBackend.all) func theRowReadAlongIsKeptWhenNothingChangedSince(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let (run, ann) = try await start(backend, directory)
        let started = run.client.users.start()
        #expect(run.client.user(ann.id, readAlong: try madeUp(ann), startedAt: started).name == "Read along")
        // The set is full (Bob): a row read from storage is kept on its second read.
        #expect(run.client.user(ann.id, readAlong: try madeUp(ann), startedAt: started).name == "Read along")
        // Kept: the next plain read is a hit on it.
        #expect(try await run.client.user(ann.id).name == "Read along")
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func aChangeOfTheUserCommittedAfterTheReadWins(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let (run, ann) = try await start(backend, directory)
        let started = run.client.users.start()
        let changed = try await run.client.updateProfile(ann.id, UserProfilePatch(name: "Ann B."))
        #expect(changed.name == "Ann B.")
        // The row read along is older than the commit's: the newer one answers.
        #expect(run.client.user(ann.id, readAlong: try madeUp(ann), startedAt: started).name == "Ann B.")
        #expect(try await run.client.user(ann.id).name == "Ann B.")
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func aResynchronizationAfterTheReadKeepsItFromBeingKept(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let (run, ann) = try await start(backend, directory)
        let started = run.client.users.start()
        await run.client.resynchronize()
        // Answered as read (it was true then), not kept: the next read goes to storage.
        #expect(run.client.user(ann.id, readAlong: try madeUp(ann), startedAt: started).name == "Read along")
        #expect(try await run.client.user(ann.id).name == "Ann")
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func anotherReplicasChangeAfterTheReadKeepsItFromBeingKept(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let (run, ann) = try await start(backend, directory)
        let started = run.client.users.start()
        await run.client.apply(Change(sequence: 1, kind: .user, key: ann.id.description, userID: ann.id.description,
                                      origin: "another replica"))
        #expect(run.client.user(ann.id, readAlong: try madeUp(ann), startedAt: started).name == "Read along")
        #expect(try await run.client.user(ann.id).name == "Ann")
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
}
