import Axiom
import Capabilities
import AxiomTestSupport
import Domain
import Foundation
import Testing
@testable import UserClient

/// The token check's table read without entering the users client's actor:
/// it answers only what `authenticate` answered, and forgets it
/// the moment the session or its user changes.
@Suite(.serialized) struct VerifiedTokensTests {
    static let password = "correct horse battery"

    @Test(arguments: StorageBackend.all) func answersWhatAuthenticateAnsweredAndForgetsItOnEveryChange(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let database = try await backend.database(at: directory.databasePath)
        let run = try await UserRun.start(database, backend: backend, sessionLifetime: .seconds(600))
        let eve = try await run.client.register(NewUserRequest(name: "Eve", email: "eve@example.com",
                                                               password: Self.password))
        let session = try await run.client.login(email: "eve@example.com", password: Self.password, clientAddress: "a")
        // Nothing is answered before the actor verified the token once.
        #expect(run.client.verifiedAuthentication(tokenHash: TokenDigest.sha256Hex(session.token)) == nil)
        let verified = try await run.client.authenticate(token: session.token)
        #expect(run.client.verifiedAuthentication(tokenHash: TokenDigest.sha256Hex(session.token)) == verified)

        // A committed change of the user: the next check sees the new role.
        _ = try await run.client.adminUpdate(eve.id, UserAdminPatch(role: .admin))
        #expect(run.client.verifiedAuthentication(tokenHash: TokenDigest.sha256Hex(session.token)) == nil)
        #expect(try await run.client.authenticate(token: session.token).user.isAdmin)
        #expect(run.client.verifiedAuthentication(tokenHash: TokenDigest.sha256Hex(session.token))?.user.isAdmin == true)

        // Expiry on the clock.
        run.clock.advance(by: .seconds(600))
        #expect(run.client.verifiedAuthentication(tokenHash: TokenDigest.sha256Hex(session.token)) == nil)
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func signOutForgetsTheSessionAndOnlyIt(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let database = try await backend.database(at: directory.databasePath)
        let run = try await UserRun.start(database, backend: backend)
        _ = try await run.client.register(NewUserRequest(name: "Eve", email: "eve@example.com", password: Self.password))
        let phone = try await run.client.login(email: "eve@example.com", password: Self.password, clientAddress: "a")
        let laptop = try await run.client.login(email: "eve@example.com", password: Self.password, clientAddress: "a")
        _ = try await run.client.authenticate(token: phone.token)
        _ = try await run.client.authenticate(token: laptop.token)
        _ = try await run.client.logout(sessionID: phone.sessionID)
        #expect(run.client.verifiedAuthentication(tokenHash: TokenDigest.sha256Hex(phone.token)) == nil)
        #expect(run.client.verifiedAuthentication(tokenHash: TokenDigest.sha256Hex(laptop.token))?.sessionID == laptop.sessionID)
        await #expect(throws: AuthenticationError.invalidToken) { _ = try await run.client.authenticate(token: phone.token) }
        await run.stop()
    }
}
