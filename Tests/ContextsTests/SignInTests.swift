import Axiom
import AxiomTestSupport
import Contexts
import Domain
import Testing

@Suite("Registration, sign-in and the token check", .serialized)
struct SignInTests {
    @Test("a token stops working at its session's expiry: the clock moves, nothing sleeps", arguments: StorageBackend.all)
    func sessionExpiresOnTheClock(backend: StorageBackend) async throws {
        try await ShopRun.with(backend) { shop in
            _ = try await shop.registration.register(NewUserRequest(name: "Alice", email: "alice@example.com",
                                                                    password: ShopRun.adminPassword))
            let session = try await shop.registration.signIn(email: "alice@example.com", password: ShopRun.adminPassword,
                                                             clientAddress: "127.0.0.1")
            // Twice: the second answer comes from the verified-token table.
            #expect(try await shop.authenticate(session.token).user.email.description == "alice@example.com")
            #expect(try await shop.authenticate(session.token).sessionID == session.sessionID)
            shop.clock.advance(by: ShopRun.sessionLifetime - .seconds(1))
            #expect(try await shop.authenticate(session.token).sessionID == session.sessionID)
            shop.clock.advance(by: .seconds(1))
            await #expect(throws: AuthenticationError.invalidToken) {
                _ = try await shop.authenticate(session.token)
            }
            // Still refused once the row is swept (the check read storage for it above).
            _ = try await shop.registration.removeExpiredSessions()
            await #expect(throws: AuthenticationError.invalidToken) {
                _ = try await shop.authenticate(session.token)
            }
        }
    }

    @Test("sign-out and suspension end a token at once, though it was verified a moment before", arguments: StorageBackend.all)
    func revocationIsImmediate(backend: StorageBackend) async throws {
        try await ShopRun.with(backend) { shop in
            let alice = try await shop.customer("Alice")
            let token = try await shop.registration.signIn(email: "alice@example.com", password: ShopRun.adminPassword,
                                                           clientAddress: "127.0.0.1").token
            let second = try await shop.authenticate(token)
            try await shop.feature(ProfileContext.self, of: alice).signOut()
            // The signed-out session's token is refused; the user's other one is not.
            #expect(try await shop.authenticate(token).sessionID == second.sessionID)
            let admin = try await shop.admin()
            _ = try await shop.feature(AdminContext.self, of: admin).updateUser(
                alice.user.id, UserAdminPatch(status: .suspended))
            await #expect(throws: AuthenticationError.invalidToken) {
                _ = try await shop.authenticate(token)
            }
        }
    }
}
