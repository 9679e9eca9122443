import Domain
import Foundation
import Testing

/// A member a patch may leave out must not be given as null: before, null
/// read as "left out" and `PATCH /users/{id}` with `{"role": null}` answered
/// 200 (schemathesis, signed in).
@Suite struct OptionalMemberTests {
    private func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(json.utf8))
    }

    private func nullMember<T: Decodable>(_ type: T.Type, _ json: String) -> String? {
        do {
            _ = try decode(T.self, json)
            return nil
        } catch DecodingError.valueNotFound(_, let context) {
            return context.codingPath.last?.stringValue
        } catch {
            return "other error: \(error)"
        }
    }

    @Test func nullIsRefusedNamingTheMember() {
        #expect(nullMember(UserAdminPatch.self, #"{"status": "active", "role": null}"#) == "role")
        #expect(nullMember(UserProfilePatch.self, #"{"password": null}"#) == "password")
        #expect(nullMember(UserProfilePatch.self, #"{"name": "Ada", "current_password": null}"#) == "current_password")
        #expect(nullMember(ProductPatch.self, #"{"stock": null}"#) == "stock")
        #expect(nullMember(ProductDraft.self,
                           #"{"sku": "A", "name": "n", "price": {"amount": 1, "currency": "USD"}, "active": null}"#)
                == "active")
    }

    @Test func leftOutMembersStayOptional() throws {
        let admin = try decode(UserAdminPatch.self, #"{"status": "suspended"}"#)
        #expect(admin.status == "suspended" && admin.role == nil)
        let profile = try decode(UserProfilePatch.self, #"{"name": "Ada"}"#)
        #expect(profile.name == "Ada" && profile.email == nil && profile.password == nil)
        let patch = try decode(ProductPatch.self, #"{"active": false}"#)
        #expect(patch.active == false && patch.stock == nil && patch.price == nil)
        let draft = try decode(ProductDraft.self, #"{"sku": "A", "name": "n", "price": {"amount": 1, "currency": "USD"}}"#)
        #expect(draft.stock == 0 && draft.active && draft.description == "")
    }
}
