import Axiom
import AxiomTestSupport
import Capabilities
import Domain
import Foundation
import Testing
@testable import UserClient

/// The account flows against a real SQLite file or PostgreSQL schema, with
/// mail on: the mails are the `account.mail` jobs committed with each
/// change, and a token taken from a job's payload is what a mail's link
/// carries. The run's manual clock moves tokens past their expiry.
@Suite(.serialized) struct AccountFlowTests {
    static let password = "correct horse battery"
    static let mailOn = AccountSettings(mailEnabled: true)

    private func start(_ backend: StorageBackend, _ directory: TempDirectory,
                       accounts: AccountSettings = AccountFlowTests.mailOn) async throws -> UserRun {
        try await UserRun.start(try await backend.database(at: directory.databasePath), backend: backend,
                                accounts: accounts)
    }

    @Test(arguments: StorageBackend.all) func aResetRequestAnswersAlikeAndMailsOnlyAnExistingAccount(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let run = try await start(backend, directory)
        let ann = try await run.client.register(NewUserRequest(name: "Ann", email: "ann@example.com", password: Self.password))
        let before = try await run.accountMails().count
        try await run.client.requestPasswordReset(email: "nobody@example.com")
        #expect(try await run.accountMails().count == before)
        try await run.client.requestPasswordReset(email: " ANN@example.com")
        let mail = try await run.lastMail(.passwordReset)
        #expect(mail.userID == ann.id)
        let token = try #require(mail.token)
        #expect(Base64URL.decode(token)?.count == 32)
        // Only the token's SHA-256 is stored.
        let stored = try await run.database.readTransaction { handle in
            try handle.query("SELECT token_hash FROM account_tokens WHERE purpose = 'reset'")
                .map { row -> String in try row.get("token_hash") }
        }
        #expect(stored == [TokenDigest.sha256Hex(token)])
        // The job is marked sensitive: its payload is erased when it finishes.
        let sensitive = try await run.database.readTransaction { handle in
            try handle.query("SELECT sensitive FROM jobs WHERE kind = 'account.mail'").map { row -> Int64 in try row.get("sensitive") }
        }
        #expect(sensitive.allSatisfy { $0 == 1 })
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func aResetSetsThePasswordEndsEverySessionAndWorksOnce(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let run = try await start(backend, directory)
        let ann = try await run.client.register(NewUserRequest(name: "Ann", email: "ann@example.com", password: Self.password))
        let phone = try await run.client.login(email: "ann@example.com", password: Self.password, clientAddress: "a")
        let laptop = try await run.client.login(email: "ann@example.com", password: Self.password, clientAddress: "b")
        _ = try await run.client.authenticate(token: phone.token)
        try await run.client.requestPasswordReset(email: "ann@example.com")
        let token = try #require(try await run.lastMail(.passwordReset).token)

        await #expect(throws: ValidationError.self) {
            try await run.client.completePasswordReset(PasswordResetCompletion(token: token, password: "short"))
        }
        let user = try await run.client.completePasswordReset(PasswordResetCompletion(token: token, password: "a brand new secret"))
        // Following the mailed link proved the mailbox.
        #expect(user.emailVerified)
        for session in [phone, laptop] {
            await #expect(throws: AuthenticationError.invalidToken) { _ = try await run.client.authenticate(token: session.token) }
        }
        #expect(try await run.lastMail(.passwordResetDone).userID == ann.id)
        await #expect(throws: AuthenticationError.invalidCredentials) {
            _ = try await run.client.login(email: "ann@example.com", password: Self.password, clientAddress: "a")
        }
        _ = try await run.client.login(email: "ann@example.com", password: "a brand new secret", clientAddress: "a")
        await #expect(throws: AccountTokenError.resetTokenInvalid) {
            try await run.client.completePasswordReset(PasswordResetCompletion(token: token, password: "yet another secret"))
        }
        await #expect(throws: AccountTokenError.resetTokenInvalid) {
            try await run.client.completePasswordReset(PasswordResetCompletion(token: "not-a-token", password: "yet another secret"))
        }
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func aResetTokenExpiresAndANewOneVoidsTheEarlier(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let run = try await start(backend, directory)
        _ = try await run.client.register(NewUserRequest(name: "Ann", email: "ann@example.com", password: Self.password))
        try await run.client.requestPasswordReset(email: "ann@example.com")
        let expiring = try #require(try await run.lastMail(.passwordReset).token)
        run.clock.advance(by: .seconds(1_801))
        await #expect(throws: AccountTokenError.resetTokenInvalid) {
            try await run.client.completePasswordReset(PasswordResetCompletion(token: expiring, password: "a brand new secret"))
        }
        try await run.client.requestPasswordReset(email: "ann@example.com")
        let first = try #require(try await run.lastMail(.passwordReset).token)
        try await run.client.requestPasswordReset(email: "ann@example.com")
        let second = try #require(try await run.lastMail(.passwordReset).token)
        #expect(first != second)
        await #expect(throws: AccountTokenError.resetTokenInvalid) {
            try await run.client.completePasswordReset(PasswordResetCompletion(token: first, password: "a brand new secret"))
        }
        try await run.client.completePasswordReset(PasswordResetCompletion(token: second, password: "a brand new secret"))
        await run.stop()
    }

    @Test func resetLinksPerAccountAreBoundedPerHourAndNoneAreMailedWithMailOff() async throws {
        let directory = try TempDirectory()
        let run = try await start(.sqlite, directory)
        _ = try await run.client.register(NewUserRequest(name: "Ann", email: "ann@example.com", password: Self.password))
        func resets() async throws -> Int { try await run.accountMails().filter { $0.mail == .passwordReset }.count }
        for _ in 0..<5 { try await run.client.requestPasswordReset(email: "ann@example.com") }
        #expect(try await resets() == 3)
        run.clock.advance(by: .seconds(3_601))
        try await run.client.requestPasswordReset(email: "ann@example.com")
        #expect(try await resets() == 4)
        await run.stop()

        let quiet = try await UserRun.start(directory, clock: run.clock)
        try await quiet.client.requestPasswordReset(email: "ann@example.com")
        let bo = try await quiet.client.register(NewUserRequest(name: "Bo", email: "bo@example.com", password: Self.password))
        #expect(try await quiet.accountMails().filter { $0.mail == .passwordReset }.count == 4)
        #expect(try await quiet.accountMails().filter { $0.userID == bo.id }.isEmpty)
        #expect(!bo.emailVerified)
        await quiet.stop()
    }

    @Test(arguments: StorageBackend.all) func registrationMailsAVerificationLinkThatConfirmsOnce(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let run = try await start(backend, directory)
        let ann = try await run.client.register(NewUserRequest(name: "Ann", email: "Ann@Example.com", password: Self.password))
        #expect(!ann.emailVerified)
        let mail = try await run.lastMail(.verifyEmail)
        #expect(mail.userID == ann.id && mail.address == "Ann@Example.com")
        let token = try #require(mail.token)
        // A reset token is no verification token, nor the other way round.
        await #expect(throws: AccountTokenError.resetTokenInvalid) {
            try await run.client.completePasswordReset(PasswordResetCompletion(token: token, password: "a brand new secret"))
        }
        #expect(try await run.client.confirmEmail(token: token).emailVerified)
        #expect(try await run.client.user(ann.id).emailVerified)
        await #expect(throws: AccountTokenError.verificationTokenInvalid) { _ = try await run.client.confirmEmail(token: token) }
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func anEmailChangeIsConfirmedByTheNewAddressAndToldToTheOld(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let run = try await start(backend, directory)
        let ann = try await run.client.register(NewUserRequest(name: "Ann", email: "ann@example.com", password: Self.password))
        let first = try #require(try await run.lastMail(.verifyEmail).token)
        let changed = try await run.client.updateProfile(ann.id, UserProfilePatch(email: "ann@new.example",
                                                                                  currentPassword: Self.password))
        #expect(!changed.emailVerified)
        let told = try await run.lastMail(.emailChanged)
        #expect(told.userID == ann.id && told.address == "ann@example.com" && told.token == nil)
        let confirm = try await run.lastMail(.verifyEmail)
        #expect(confirm.address == "ann@new.example")
        // The link mailed to the old address confirms nothing now.
        await #expect(throws: AccountTokenError.verificationTokenInvalid) { _ = try await run.client.confirmEmail(token: first) }
        run.clock.advance(by: .seconds(3_600))
        #expect(try await run.client.confirmEmail(token: try #require(confirm.token)).email.address == "ann@new.example")
        #expect(try await run.client.user(ann.id).emailVerified)
        await run.stop()
    }

    @Test func aVerificationLinkExpires() async throws {
        let directory = try TempDirectory()
        let run = try await start(.sqlite, directory)
        let ann = try await run.client.register(NewUserRequest(name: "Ann", email: "ann@example.com", password: Self.password))
        let token = try #require(try await run.lastMail(.verifyEmail).token)
        run.clock.advance(by: .seconds(172_801))
        await #expect(throws: AccountTokenError.verificationTokenInvalid) { _ = try await run.client.confirmEmail(token: token) }
        #expect(try await run.client.resendVerification(ann.id))
        let fresh = try #require(try await run.lastMail(.verifyEmail).token)
        #expect(try await run.client.confirmEmail(token: fresh).emailVerified)
        #expect(try await run.client.resendVerification(ann.id) == false)
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func aTakenAddressMailsItsOwnerOnceWhileQueued(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let run = try await start(backend, directory)
        let ann = try await run.client.register(NewUserRequest(name: "Ann", email: "ann@example.com", password: Self.password))
        for _ in 0..<3 {
            await #expect(throws: EntityError.duplicate(field: "email", value: "ANN@example.com")) {
                _ = try await run.client.register(NewUserRequest(name: "Eve", email: "ANN@example.com", password: "another password"))
            }
        }
        let attempts = try await run.accountMails().filter { $0.mail == .registrationAttempt }
        #expect(attempts.map(\.userID) == [ann.id])
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func sessionsAreListedAndEndedOneByOneByTheirOwnerOnly(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let run = try await start(backend, directory, accounts: AccountSettings())
        let ann = try await run.client.register(NewUserRequest(name: "Ann", email: "ann@example.com", password: Self.password))
        let bo = try await run.client.register(NewUserRequest(name: "Bo", email: "bo@example.com", password: Self.password))
        let phone = try await run.client.login(email: "ann@example.com", password: Self.password, clientAddress: "a")
        run.clock.advance(by: .seconds(1))
        let laptop = try await run.client.login(email: "ann@example.com", password: Self.password, clientAddress: "b")
        let bos = try await run.client.login(email: "bo@example.com", password: Self.password, clientAddress: "c")
        _ = try await run.client.authenticate(token: laptop.token)

        let listed = try await run.client.sessions(of: ann.id, current: phone.sessionID)
        #expect(listed.map(\.id) == [phone.sessionID, laptop.sessionID])
        #expect(listed.map(\.current) == [true, false])
        #expect(listed[1].expiresAt == laptop.expiresAt)
        await #expect(throws: EntityError.notFound(entity: "session", id: bos.sessionID)) {
            try await run.client.endSession(bos.sessionID, of: ann.id)
        }
        #expect(try await run.client.authenticate(token: bos.token).user.id == bo.id)
        try await run.client.endSession(laptop.sessionID, of: ann.id)
        await #expect(throws: AuthenticationError.invalidToken) { _ = try await run.client.authenticate(token: laptop.token) }
        #expect(try await run.client.sessions(of: ann.id, current: phone.sessionID).map(\.id) == [phone.sessionID])
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func deletionAnonymisesTheUserFreesTheAddressAndEndsEverySession(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let run = try await start(backend, directory)
        let ann = try await run.client.register(NewUserRequest(name: "Ann", email: "ann@example.com", password: Self.password))
        let session = try await run.client.login(email: "ann@example.com", password: Self.password, clientAddress: "a")
        try await run.client.requestPasswordReset(email: "ann@example.com")
        await #expect(throws: AuthenticationError.invalidCredentials) {
            try await run.client.deleteAccount(ann.id, password: "not the password", clientAddress: "a")
        }
        try await run.client.deleteAccount(ann.id, password: Self.password, clientAddress: "a")
        try await run.client.deleteAccount(ann.id, password: "anything", clientAddress: "a")
        let deleted = try await run.client.user(ann.id)
        #expect(deleted.status == .deleted && deleted.name == UserClient.deletedName)
        #expect(!deleted.email.address.contains("ann@example.com"))
        await #expect(throws: AuthenticationError.invalidToken) { _ = try await run.client.authenticate(token: session.token) }
        let left = try await run.database.readTransaction { handle -> (Int, Int, String, Int) in
            let tokens: Int = try handle.queryOne("SELECT COUNT(*) AS n FROM account_tokens")!.get("n")
            let sessions: Int = try handle.queryOne("SELECT COUNT(*) AS n FROM sessions")!.get("n")
            let hash: String = try handle.queryOne("SELECT password_hash FROM users WHERE id = ?", ann.id.description)!
                .get("password_hash")
            let erasures: Int = try handle.queryOne("SELECT COUNT(*) AS n FROM jobs WHERE kind = ?",
                                                    AccountErasure.kind.name)!.get("n")
            return (tokens, sessions, hash, erasures)
        }
        #expect(left.0 == 0 && left.1 == 0 && left.2.isEmpty && left.3 == 1)
        // The address is free for a new account; the old one never signs in.
        let again = try await run.client.register(NewUserRequest(name: "Ann", email: "ann@example.com", password: Self.password))
        #expect(again.id != ann.id)
        await #expect(throws: UserError.userDeleted(ann.id)) {
            _ = try await run.client.adminUpdate(ann.id, UserAdminPatch(status: .active))
        }
        await run.stop()
    }

    @Test func theLastAdminCannotDeleteTheirAccount() async throws {
        let directory = try TempDirectory()
        let run = try await start(.sqlite, directory)
        let admin = try await run.client.ensureAdmin(name: "Root", email: "root@example.com", password: Self.password)
        #expect(admin.emailVerified)
        await #expect(throws: UserError.lastAdmin(admin.id)) {
            try await run.client.deleteAccount(admin.id, password: Self.password, clientAddress: "a")
        }
        #expect(try await run.client.user(admin.id).status == .active)
        await run.stop()
    }
}
