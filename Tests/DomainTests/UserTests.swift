import Domain
import Foundation
import Testing

@Suite struct UserTests {
    @Test func registrationReportsEveryFailingField() {
        let request = NewUserRequest(name: "   ", email: "not-an-email", password: "short")
        let errors = request.validate()
        #expect(errors?.fields == ["name", "email", "password"])
        #expect(errors?.codes(for: "name") == [.required])
        #expect(errors?.codes(for: "email") == [.invalidFormat])
        #expect(errors?.codes(for: "password") == [.tooShort])
        let thrown = validationError { () throws in try request.makeUser(id: UserID(uuid(1)), createdAt: t0) }
        #expect(thrown == errors)
        #expect(errors!.code == "validation_failed")
        #expect(errors!.category == .invalid)
    }

    @Test func registrationTrimsAndBuildsAnActiveCustomer() throws {
        let request = NewUserRequest(name: "  Ada Lovelace ", email: " Ada@Example.com ", password: "correct horse")
        #expect(request.validate() == nil)
        let user = try request.makeUser(id: UserID(uuid(1)), createdAt: t0)
        #expect(user.name == "Ada Lovelace")
        #expect(user.email.address == "Ada@Example.com")
        #expect(user.role == .customer && user.status == .active && user.createdAt == t0)
        #expect(!request.description.contains("correct horse"))
    }

    @Test func nameLengthIsCountedInCharacters() {
        let hundred = String(repeating: "é", count: 100)
        #expect(NewUserRequest(name: hundred, email: "a@b.co", password: "0123456789").validate() == nil)
        let errors = NewUserRequest(name: hundred + "x", email: "a@b.co", password: "0123456789").validate()
        #expect(errors?.codes(for: "name") == [.tooLong])
        #expect(NewUserRequest(name: "a\u{0}b", email: "a@b.co", password: "0123456789").validate()?
            .codes(for: "name") == [.invalidFormat])
    }

    @Test func passwordPolicy() {
        #expect(PasswordPolicy.check("")?.code == .required)
        #expect(PasswordPolicy.check("123456789")?.code == .tooShort)
        #expect(PasswordPolicy.check("1234567890") == nil)
        #expect(PasswordPolicy.check("🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑") == nil)  // 10 characters, 40 bytes
        #expect(PasswordPolicy.check(String(repeating: "x", count: 1024)) == nil)
        #expect(PasswordPolicy.check(String(repeating: "x", count: 1025))?.code == .tooLong)
        #expect(PasswordPolicy.check(String(repeating: "€", count: 342))?.code == .tooLong)  // 1026 bytes
    }

    @Test func validateListsBrokenInvariants() throws {
        let user = try makeUser(1, name: " padded")
        #expect(user.validate()?.codes(for: "name") == [.invalidFormat])
        #expect(try makeUser(1, name: "").validate()?.codes(for: "name") == [.required])
        #expect(try makeUser(1).validate() == nil)
    }

    @Test func businessMethodsReturnNewValues() throws {
        let user = try makeUser(1)
        #expect(user.canPlaceOrder && user.canLogIn && !user.isAdmin)
        let suspended = user.suspended()
        #expect(suspended.status == .suspended && !suspended.canPlaceOrder && !suspended.canLogIn)
        #expect(suspended.activated() == user)
        #expect(user.with(role: .admin).isAdmin && user.with(role: .admin).demoted() == user)
        #expect(user.with(status: .suspended) == suspended)
        #expect(try user.renamed(to: "  Grace Hopper ").name == "Grace Hopper")
        #expect(validationError { () throws in try user.renamed(to: " ") }?.codes(for: "name") == [.required])
        let moved = user.changingEmail(to: try Email("new@example.com"))
        #expect(moved.email.normalized == "new@example.com" && moved.id == user.id && moved.createdAt == user.createdAt)
        #expect(user.status == .active)  // the original is untouched
    }

    @Test func profilePatchValidatesEveryPresentField() throws {
        let patch = UserProfilePatch(name: "", email: "bad", password: "short")
        #expect(patch.validate()?.fields == ["name", "email", "password", "current_password"])
        #expect(UserProfilePatch(password: "long enough pw", currentPassword: "old").validate() == nil)
        #expect(UserProfilePatch().isEmpty && UserProfilePatch().validate() == nil)
        let user = try makeUser(1)
        // A new email needs the current password, like a new password.
        #expect(UserProfilePatch(email: "new@example.com").validate()?.fields == ["current_password"])
        #expect(UserProfilePatch(name: "Only A Name").validate() == nil)
        let changed = try UserProfilePatch(name: " New Name ", email: "NEW@example.com", currentPassword: "old")
            .applied(to: user)
        #expect(changed.name == "New Name" && changed.email.address == "NEW@example.com")
        #expect(validationError { () throws in try patch.applied(to: user) }?.errors.count == 4)
        #expect(!UserProfilePatch(password: "secret-secret", currentPassword: "old-secret").description.contains("secret"))
        let decoded = try JSONDecoder().decode(UserProfilePatch.self,
                                               from: Data(#"{"password":"0123456789","current_password":"x"}"#.utf8))
        #expect(decoded.currentPassword == "x")
    }

    @Test func adminPatchNamesUnknownValues() throws {
        let user = try makeUser(1)
        let changed = try UserAdminPatch(status: UserStatus.suspended, role: UserRole.admin).applied(to: user)
        #expect(changed.status == .suspended && changed.role == .admin && changed.name == user.name)
        #expect(try UserAdminPatch(status: "active" as String?).applied(to: changed).status == .active)
        let bad = UserAdminPatch(status: "banned", role: "root")
        #expect(bad.validate()?.fields == ["status", "role"])
        #expect(bad.validate()?.errors.map(\.code) == [.invalidFormat, .invalidFormat])
        #expect(validationError { () throws in try bad.applied(to: user) } == bad.validate())
        #expect(try UserAdminPatch(status: nil as String?, role: nil).applied(to: user) == user)
    }

    @Test func codesWithSnakeCaseKeysAndNoSecrets() throws {
        let user = try makeUser(1, email: "Ada@Example.com", role: .admin).suspended()
        let (decoded, json) = try roundTrip(user)
        #expect(decoded == user)
        #expect(json == #"{"created_at":"2026-11-18T11:06:40.000Z","email":"Ada@Example.com","email_verified":true,"id":"00000000-0000-0000-0000-000000000001","name":"Ada Lovelace","role":"admin","status":"suspended"}"#)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(User.self, from: Data(json.replacingOccurrences(of: "\"admin\"", with: "\"root\"").utf8))
        }
    }
}
