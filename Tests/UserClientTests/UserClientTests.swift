import Axiom
import Capabilities
import Domain
import AxiomTestSupport
import Foundation
import Testing
import UserClient

@Suite(.serialized) struct UserClientTests {
    static let alice = NewUserRequest(name: "Alice", email: "Alice@Example.com", password: "correct horse battery")

    @Test func registrationValidatesEveryFieldAndRefusesADuplicateInAnyCase() async throws {
        let directory = try TempDirectory()
        let run = try await UserRun.start(directory)
        let user = try await run.client.register(Self.alice)
        #expect(user.role == .customer)
        #expect(user.status == .active)
        do {
            _ = try await run.client.register(NewUserRequest(name: "", email: "nope", password: "short"))
            Issue.record("invalid registration accepted")
        } catch DomainError.validation(let errors) {
            #expect(Set(errors.fields) == ["name", "email", "password"])
        }
        await #expect(throws: DomainError.duplicate(field: "email", value: "alice@EXAMPLE.com")) {
            _ = try await run.client.register(NewUserRequest(name: "A2", email: "alice@EXAMPLE.com", password: "another long one"))
        }
        await run.stop()
    }

    @Test func loginIssuesATokenStoredOnlyAsItsHash() async throws {
        let directory = try TempDirectory()
        let run = try await UserRun.start(directory)
        let user = try await run.client.register(Self.alice)
        let session = try await run.client.login(email: "alice@example.com", password: "correct horse battery",
                                                 clientAddress: "127.0.0.1")
        #expect(session.user == user)
        #expect(session.token.count == 43)  // 256 bits, base64url
        let authentication = try await run.client.authenticate(token: session.token)
        #expect(authentication.user.id == user.id)
        #expect(authentication.sessionID == session.sessionID)
        let token = session.token
        let stored = try await run.storage.read { handle in
            try handle.query("SELECT token_hash FROM sessions").map { row -> String in try row.get("token_hash") }
        }
        #expect(stored == [TokenDigest.sha256Hex(token)])
        #expect(!stored.contains(token))
        let hashes = try await run.storage.read { handle in
            try handle.query("SELECT password_hash FROM users").map { row -> String in try row.get("password_hash") }
        }
        #expect(hashes.allSatisfy { $0.hasPrefix("$argon2id$") })
        await run.stop()
    }

    @Test func wrongPasswordAndUnknownEmailGetTheSameError() async throws {
        let directory = try TempDirectory()
        let run = try await UserRun.start(directory)
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

    @Test func failedLoginsAreThrottledPerAccountAndPerAddress() async throws {
        let directory = try TempDirectory()
        let run = try await UserRun.start(directory, throttle: LoginThrottle.Policy(perAccount: 3, perAddress: 5))
        _ = try await run.client.register(Self.alice)
        for _ in 0..<3 {
            await #expect(throws: AuthenticationError.invalidCredentials) {
                _ = try await run.client.login(email: "alice@example.com", password: "wrong password!", clientAddress: "10.0.0.1")
            }
        }
        // Even the right password waits now: the account is throttled.
        do {
            _ = try await run.client.login(email: "ALICE@example.com", password: "correct horse battery", clientAddress: "10.0.0.2")
            Issue.record("throttled account signed in")
        } catch AuthenticationError.tooManyAttempts(let seconds) {
            #expect(seconds > 0 && seconds <= 15 * 60)
        }
        // One address spraying other accounts is throttled too.
        for index in 0..<2 {
            await #expect(throws: AuthenticationError.invalidCredentials) {
                _ = try await run.client.login(email: "ghost\(index)@example.com", password: "whatever it is", clientAddress: "10.0.0.1")
            }
        }
        await #expect(throws: AuthenticationError.tooManyAttempts(retryAfterSeconds: 900)) {
            _ = try await run.client.login(email: "ghost9@example.com", password: "whatever it is", clientAddress: "10.0.0.1")
        }
        await run.stop()
    }

    @Test func sessionsSurviveARestartAndLogoutRevokes() async throws {
        let directory = try TempDirectory()
        var run = try await UserRun.start(directory)
        _ = try await run.client.register(Self.alice)
        let first = try await run.client.login(email: "alice@example.com", password: "correct horse battery", clientAddress: "x")
        let second = try await run.client.login(email: "alice@example.com", password: "correct horse battery", clientAddress: "x")
        await run.stop()

        run = try await UserRun.start(directory)
        #expect(try await run.client.authenticate(token: first.token).user.email.normalized == "alice@example.com")
        _ = try await run.client.logout(sessionID: first.sessionID)
        await #expect(throws: AuthenticationError.invalidToken) { _ = try await run.client.authenticate(token: first.token) }
        #expect(try await run.client.authenticate(token: second.token).sessionID == second.sessionID)
        await run.stop()

        run = try await UserRun.start(directory)
        await #expect(throws: AuthenticationError.invalidToken) { _ = try await run.client.authenticate(token: first.token) }
        #expect(await run.client.liveSessionCount == 1)
        await run.stop()
    }

    @Test func adminBootstrapIsIdempotent() async throws {
        let directory = try TempDirectory()
        let run = try await UserRun.start(directory)
        let admin = try await run.client.ensureAdmin(name: "Root", email: "root@example.com", password: "a very long secret")
        #expect(admin.role == .admin)
        let again = try await run.client.ensureAdmin(name: "Other", email: "ROOT@example.com", password: "a different secret")
        #expect(again == admin)
        #expect(await run.client.state.count == 1)
        await run.stop()
    }
}
