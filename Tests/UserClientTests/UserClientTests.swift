import Axiom
import Capabilities
import Domain
import AxiomTestSupport
import Foundation
import Testing
@testable import UserClient

@Suite(.serialized) struct UserClientTests {
    static let alice = NewUserRequest(name: "Alice", email: "Alice@Example.com", password: "correct horse battery")

    @Test(arguments: StorageBackend.all) func registrationValidatesEveryFieldAndRefusesADuplicateInAnyCase(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let database = try await backend.database(at: directory.databasePath)
        let run = try await UserRun.start(database, backend: backend)
        let user = try await run.client.register(Self.alice)
        #expect(user.role == .customer)
        #expect(user.status == .active)
        do {
            _ = try await run.client.register(NewUserRequest(name: "", email: "nope", password: "short"))
            Issue.record("invalid registration accepted")
        } catch let errors as ValidationError {
            #expect(Set(errors.fields) == ["name", "email", "password"])
        }
        await #expect(throws: EntityError.duplicate(field: "email", value: "alice@EXAMPLE.com")) {
            _ = try await run.client.register(NewUserRequest(name: "A2", email: "alice@EXAMPLE.com", password: "another long one"))
        }
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func loginIssuesATokenStoredOnlyAsItsHash(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let database = try await backend.database(at: directory.databasePath)
        let run = try await UserRun.start(database, backend: backend)
        let user = try await run.client.register(Self.alice)
        let session = try await run.client.login(email: "alice@example.com", password: "correct horse battery",
                                                 clientAddress: "127.0.0.1")
        #expect(session.user == user)
        #expect(session.token.count == 43)  // 256 bits, base64url
        let authentication = try await run.client.authenticate(token: session.token)
        #expect(authentication.user.id == user.id)
        #expect(authentication.sessionID == session.sessionID)
        let token = session.token
        let stored = try await run.database.readTransaction { handle in
            try handle.query("SELECT token_hash FROM sessions").map { row -> String in try row.get("token_hash") }
        }
        #expect(stored == [TokenDigest.sha256Hex(token)])
        #expect(!stored.contains(token))
        let hashes = try await run.database.readTransaction { handle in
            try handle.query("SELECT password_hash FROM users").map { row -> String in try row.get("password_hash") }
        }
        #expect(hashes.allSatisfy { $0.hasPrefix("$argon2id$") })
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func wrongPasswordAndUnknownEmailGetTheSameError(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let database = try await backend.database(at: directory.databasePath)
        let run = try await UserRun.start(database, backend: backend)
        _ = try await run.client.register(Self.alice)
        await #expect(throws: AuthenticationError.invalidCredentials) {
            _ = try await run.client.login(email: "alice@example.com", password: "wrong password!", clientAddress: "a")
        }
        await #expect(throws: AuthenticationError.invalidCredentials) {
            _ = try await run.client.login(email: "nobody@example.com", password: "whatever it is", clientAddress: "a")
        }
        await #expect(throws: AuthenticationError.invalidToken) { _ = try await run.client.authenticate(token: "bogus") }
        await run.stop()
    }

    /// Before: 5 failures from one address locked the account for 15 min
    /// from every address, the owner's included (who signed in from
    /// 192.168.1.20 before).
    @Test(arguments: StorageBackend.all) func anAttackersFailuresDoNotHoldTheOwnerAtAnotherAddress(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let database = try await backend.database(at: directory.databasePath)
        let run = try await UserRun.start(database, backend: backend)
        _ = try await run.client.register(Self.alice)
        _ = try await run.client.login(email: "alice@example.com", password: "correct horse battery",
                                       clientAddress: "192.168.1.20")
        var refused = 0
        for attempt in 0..<12 {
            for address in ["10.0.0.1", "10.0.0.\(attempt + 2)"] {
                do {
                    _ = try await run.client.login(email: "alice@example.com", password: "wrong password!", clientAddress: address)
                    Issue.record("a wrong password signed in")
                } catch AuthenticationError.tooManyAttempts(let seconds) {
                    refused += 1
                    #expect(seconds >= 1 && seconds <= 30)
                } catch AuthenticationError.invalidCredentials {}
            }
        }
        // The attacker's own address is held; the owner's is not.
        #expect(refused > 0)
        // 10 failures for the account (then the fresh addresses were held
        // too): its back-off for a failing address is at the 30 s cap.
        await #expect(throws: AuthenticationError.tooManyAttempts(retryAfterSeconds: 30)) {
            _ = try await run.client.login(email: "alice@example.com", password: "correct horse battery", clientAddress: "10.0.0.1")
        }
        let session = try await run.client.login(email: "ALICE@example.com", password: "correct horse battery",
                                                 clientAddress: "192.168.1.20")
        #expect(session.user.email.normalized == "alice@example.com")
        // The attacker's address gets in again once its back-off has passed.
        run.clock.advance(by: .seconds(30))
        _ = try await run.client.login(email: "alice@example.com", password: "correct horse battery", clientAddress: "10.0.0.1")
        await run.stop()
    }

    /// Before: every new address got its guess in. Counted in the
    /// throttle's table on either backend.
    @Test(arguments: StorageBackend.all) func guessesFromManyAddressesAreHeldButNotTheOwnersFamiliarOne(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let database = try await backend.database(at: directory.databasePath)
        let run = try await UserRun.start(database, backend: backend)
        _ = try await run.client.register(Self.alice)
        _ = try await run.client.login(email: "alice@example.com", password: "correct horse battery", clientAddress: "home")
        var failures = 0
        var waits: [Int] = []
        for bot in 0..<30 {
            do {
                _ = try await run.client.login(email: "alice@example.com", password: "wrong password!", clientAddress: "bot\(bot)")
            } catch AuthenticationError.tooManyAttempts(let seconds) {
                waits.append(seconds)
            } catch AuthenticationError.invalidCredentials {
                failures += 1
            }
        }
        // The clock stands still: 10 free failures, then every new address waits.
        #expect(failures == 10)
        #expect(waits == Array(repeating: 1, count: 20))
        _ = try await run.client.login(email: "alice@example.com", password: "correct horse battery", clientAddress: "home")
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func sessionsSurviveARestartAndLogoutRevokes(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let database = try await backend.database(at: directory.databasePath)
        var run = try await UserRun.start(database, backend: backend)
        _ = try await run.client.register(Self.alice)
        let first = try await run.client.login(email: "alice@example.com", password: "correct horse battery", clientAddress: "x")
        let second = try await run.client.login(email: "alice@example.com", password: "correct horse battery", clientAddress: "x")
        await run.stop()

        run = try await UserRun.start(database, backend: backend)
        #expect(try await run.client.authenticate(token: first.token).user.email.normalized == "alice@example.com")
        _ = try await run.client.logout(sessionID: first.sessionID)
        await #expect(throws: AuthenticationError.invalidToken) { _ = try await run.client.authenticate(token: first.token) }
        #expect(try await run.client.authenticate(token: second.token).sessionID == second.sessionID)
        await run.stop()

        run = try await UserRun.start(database, backend: backend)
        // Nothing is loaded at start: the surviving token is read by its hash's index.
        #expect(await run.client.liveSessionCount == 0)
        await #expect(throws: AuthenticationError.invalidToken) { _ = try await run.client.authenticate(token: first.token) }
        #expect(try await run.client.authenticate(token: second.token).sessionID == second.sessionID)
        #expect(await run.client.liveSessionCount == 1)
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func adminBootstrapIsIdempotent(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let database = try await backend.database(at: directory.databasePath)
        let run = try await UserRun.start(database, backend: backend)
        let admin = try await run.client.ensureAdmin(name: "Root", email: "root@example.com", password: "a very long secret")
        #expect(admin.role == .admin)
        let again = try await run.client.ensureAdmin(name: "Other", email: "ROOT@example.com", password: "a different secret")
        #expect(again == admin)
        #expect(await run.client.state.count == 1)
        await run.stop()
    }
}
