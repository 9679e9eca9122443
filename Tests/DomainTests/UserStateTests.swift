import Domain
import Testing

@Suite struct UserStateTests {
    @Test func emailsAreUniqueCaseInsensitively() throws {
        var state = UserState()
        try state.insert(try makeUser(1, email: "Ada@Example.com"))
        let clash = try makeUser(2, email: "ada@EXAMPLE.com")
        #expect(domainError { () throws in try state.insert(clash) } == EntityError.duplicate(field: "email", value: "ada@EXAMPLE.com"))
        #expect(EntityError.duplicate(field: "email", value: "x").code == "duplicate_email")
        #expect(EntityError.duplicate(field: "email", value: "x").category == .conflict)
        #expect(state.user(email: " ADA@example.COM ")?.id == UserID(uuid(1)))
        #expect(state.count == 1)
    }

    @Test func refusesInvalidUsersAndDuplicateIDs() throws {
        var state = UserState()
        #expect(validationError { () throws in try state.insert(try! makeUser(1, name: "")) } != nil)
        try state.insert(try makeUser(1, email: "a@example.com"))
        #expect(domainError { () throws in try state.insert(try! makeUser(1, email: "b@example.com")) }?.code == "duplicate_id")
    }

    @Test func updateMovesTheEmailIndex() throws {
        var state = UserState()
        let ada = try makeUser(1, email: "ada@example.com")
        let bob = try makeUser(2, email: "bob@example.com")
        try state.insert(ada)
        try state.insert(bob)
        try state.update(ada.changingEmail(to: try Email("Countess@example.com")))
        #expect(state.user(email: "ada@example.com") == nil)
        #expect(state.user(email: "countess@example.com")?.id == ada.id)
        #expect(state.idsByEmail.count == 2)
        // Keeping one's own address (in another case) is not a clash; taking another's is.
        try state.update(state.user(ada.id)!.changingEmail(to: try Email("COUNTESS@example.com")))
        #expect(domainError { () throws in
            try state.update(state.user(ada.id)!.changingEmail(to: try Email("BOB@example.com")))
        } == EntityError.duplicate(field: "email", value: "BOB@example.com"))
        let ghost = try makeUser(3, email: "ghost@example.com")
        #expect(domainError { () throws in try state.update(ghost) } == EntityError.notFound(entity: "user", id: ghost.id.description))
        #expect(EntityError.notFound(entity: "user", id: "x").code == "user_not_found")
    }

    @Test func loadsFromStorageAndComparesByValue() throws {
        let users = [try makeUser(2, email: "b@example.com", createdAt: Timestamp(millisecondsSince1970: 2)),
                     try makeUser(1, email: "a@example.com", createdAt: Timestamp(millisecondsSince1970: 1))]
        let state = try UserState(users: users)
        #expect(state.count == 2 && state.user(UserID(uuid(1))) == users[1])
        var other = UserState()
        try other.insert(users[1])
        #expect(other != state)
        try other.insert(users[0])
        #expect(other == state)
        #expect(domainError { () throws in try UserState(users: users + [users[0]]) } != nil)
    }
}
