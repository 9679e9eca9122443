@testable import Domain
import Foundation
import Testing

@Suite struct IdentifierTests {
    @Test func parsesEitherCaseAndPrintsLowerCase() throws {
        let upper = "A1B2C3D4-0000-4000-8000-00000000ABCD"
        let id = try #require(ProductID(upper))
        #expect(id.description == upper.lowercased())
        #expect(ProductID(upper.lowercased()) == id)
        #expect(OrderID("not-a-uuid") == nil)
        #expect(CheckoutID("") == nil)
        #expect(CheckoutID(uuid(7)).description == "00000000-0000-0000-0000-000000000007")
    }

    @Test func codesAsCanonicalString() throws {
        let (decoded, json) = try roundTrip([OrderID(uuid(255))])
        #expect(decoded == [OrderID(uuid(255))])
        #expect(json == #"["00000000-0000-0000-0000-0000000000ff"]"#)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([ProductID].self, from: Data(#"["x"]"#.utf8)) }
    }
}

@Suite struct UUIDTextTests {
    @Test func roundTripsAgainstFoundation() {
        for _ in 0..<500 {
            let uuid = UUID()
            #expect(UUIDText.format(uuid) == uuid.uuidString.lowercased())
            #expect(UUIDText.parse(uuid.uuidString) == uuid)
            #expect(UUIDText.parse(uuid.uuidString.lowercased()) == uuid)
        }
    }

    @Test(arguments: ["", "not-a-uuid", "6f1c2a40-0000-4000-8000-00000000000", "6f1c2a40-0000-4000-8000-0000000000000",
                      "6f1c2a40x0000-4000-8000-000000000000", "6f1c2a40-0000-4000-8000-00000000000g",
                      "{6f1c2a40-0000-4000-8000-000000000000}", "6f1c2a4-00000-4000-8000-000000000000"])
    func refusesWhatFoundationRefuses(_ text: String) {
        #expect(UUIDText.parse(text) == nil)
        #expect(UUID(uuidString: text) == nil)
    }
}
