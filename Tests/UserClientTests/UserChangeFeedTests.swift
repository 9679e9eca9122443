import AxiomTestSupport
import Capabilities
import Domain
import Foundation
import Testing
@testable import UserClient

/// Two users clients over one database, as two replicas are: a sign-out or
/// a suspension acknowledged by A is refused by B from then on (after B's
/// read barrier), though B had verified and kept the token.
@Suite(.serialized) struct UserChangeFeedTests {
    static let password = "correct horse battery staple"

    static func client(_ replica: Replica, accounts: AccountSettings = AccountSettings()) async throws -> UserClient {
        let users = UserClient(storage: replica.storage,
                               hasher: try await standaloneHandle(try PasswordHasher(parameters: .minimum)),
                               random: try await standaloneHandle(try SecureRandom()), clock: ManualClock(),
                               accounts: accounts)
        try await users.activate()
        replica.feed.subscribe(users)
        try await replica.feed.start()
        return users
    }

    @Test(arguments: StorageBackend.all)
    func aSignOutOrSuspensionOnOneReplicaIsRefusedByTheOther(backend: StorageBackend) async throws {
        let (a, b) = try await Replica.pair(backend, migrations: UserClient.migrations,
                                            a: .poll(every: .seconds(3600)), b: .poll(every: .seconds(3600)))
        let usersA = try await Self.client(a)
        let usersB = try await Self.client(b)
        let admin = try await usersA.ensureAdmin(name: "Root", email: "root@example.com", password: Self.password)
        for round in 0..<10 {
            let email = "kim\(round)@example.com"
            let user = try await usersA.register(NewUserRequest(name: "Kim", email: email, password: Self.password))
            let first = try await usersA.login(email: email, password: Self.password, clientAddress: "127.0.0.1")
            let second = try await usersA.login(email: email, password: Self.password, clientAddress: "127.0.0.1")
            // B verifies both tokens and keeps the answers.
            _ = try await usersB.authenticate(token: first.token)
            _ = try await usersB.authenticate(token: second.token)
            #expect(usersB.verifiedAuthentication(tokenHash: TokenDigest.sha256Hex(first.token)) != nil)

            _ = try await usersA.logout(sessionID: first.sessionID)
            try await b.feed.barrier()
            await #expect(throws: (any Error).self, "round \(round): signed out on A") {
                _ = try await usersB.authenticate(token: first.token)
            }

            _ = try await usersA.adminUpdate(user.id, UserAdminPatch(status: UserStatus.suspended))
            try await b.feed.barrier()
            await #expect(throws: (any Error).self, "round \(round): suspended on A") {
                _ = try await usersB.authenticate(token: second.token)
            }
            #expect(try await usersB.user(user.id).status == .suspended)
        }
        _ = admin
        await a.stop()
        await b.stop()
    }

    /// A reset or a session ended one by one on A: B, which had verified
    /// and kept the tokens, refuses them after its read barrier.
    @Test(arguments: StorageBackend.all)
    func aResetOrAnEndedSessionOnOneReplicaIsRefusedByTheOther(backend: StorageBackend) async throws {
        let (a, b) = try await Replica.pair(backend, migrations: UserClient.migrations,
                                            a: .poll(every: .seconds(3600)), b: .poll(every: .seconds(3600)))
        let usersA = try await Self.client(a, accounts: AccountSettings(mailEnabled: true))
        let usersB = try await Self.client(b, accounts: AccountSettings(mailEnabled: true))
        let user = try await usersA.register(NewUserRequest(name: "Kim", email: "kim@example.com", password: Self.password))
        let first = try await usersA.login(email: "kim@example.com", password: Self.password, clientAddress: "127.0.0.1")
        let second = try await usersA.login(email: "kim@example.com", password: Self.password, clientAddress: "127.0.0.1")
        _ = try await usersB.authenticate(token: first.token)
        _ = try await usersB.authenticate(token: second.token)

        try await usersA.endSession(first.sessionID, of: user.id)
        try await b.feed.barrier()
        await #expect(throws: AuthenticationError.invalidToken) { _ = try await usersB.authenticate(token: first.token) }
        #expect(try await usersB.authenticate(token: second.token).user.id == user.id)

        try await usersB.requestPasswordReset(email: "kim@example.com")
        let token = try await b.storage.storedRead { handle in
            try handle.query("SELECT payload FROM jobs WHERE kind = 'account.mail' ORDER BY id").map { row -> String in
                try row.get("payload")
            }
        }.compactMap { try AccountMail(payload: Array($0.utf8)) }.last { $0.mail == .passwordReset }?.token
        try await usersA.completePasswordReset(PasswordResetCompletion(token: try #require(token), password: "a brand new secret"))
        try await b.feed.barrier()
        await #expect(throws: AuthenticationError.invalidToken) { _ = try await usersB.authenticate(token: second.token) }
        await a.stop()
        await b.stop()
    }
}
