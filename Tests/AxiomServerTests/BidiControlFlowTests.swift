import Foundation
import Testing
import TestSupport

/// Names and addresses refuse the bidirectional embeddings, overrides and
/// isolates (U+202A–U+202E, U+2066–U+2069), which reorder what an admin,
/// a label or an export shows ("Trojan Source"); before, only the Cc
/// category was refused and U+202E was stored. The marks stay allowed.
@Suite struct BidiControlFlowTests {
    typealias Shop = PaymentShop

    @Test func namesAndAddressesRefuseBidirectionalOverrides() throws {
        try Shop.run(stock: 10) { shop, api in
            let buyer = try shop.customer("bidi", carting: 1)
            for (member, value) in [("name", #"Ana \u202Egpj.exe"#), ("city", #"Ma\u2066drid\u2069"#)] {
                var address = #"{"name":"Ana","lines":["Calle Mayor 1"],"city":"Madrid","postal_code":"28013","country":"ES","phone":"+34910000000"}"#
                address = address.replacingOccurrences(of: member == "name" ? #""name":"Ana""# : #""city":"Madrid""#,
                                                       with: #""\#(member)":"\#(value)""#)
                let refused = try api.call("POST", "/checkout", json: #"{"shipping_address":\#(address)}"#, token: buyer)
                #expect(refused.status == 422)
                let errors = Shop.fields(api, refused)
                #expect(errors.map { $0["field"] } == ["shipping_address.\(member)"])
                #expect(errors.first?["message"]?.contains("bidirectional") == true)
            }
            let profile = try api.call("PATCH", "/users/me", json: #"{"name":"\u202Dbidi"}"#, token: buyer)
            #expect(profile.status == 422)
            #expect(Shop.fields(api, profile).map { $0["field"] } == ["name"])
            // A right-to-left mark is allowed: mixed Hebrew and Latin needs it.
            #expect(try api.call("PATCH", "/users/me", json: #"{"name":"שלום\u200F Ana"}"#, token: buyer).status == 200)
            #expect(try shop.stock() == 10)
        }
    }
}
