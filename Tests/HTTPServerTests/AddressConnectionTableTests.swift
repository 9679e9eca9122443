import Testing
@testable import HTTPServer

@Suite struct AddressConnectionTableTests {
    @Test func eachAddressHasItsOwnCap() {
        var table = AddressConnectionTable(limit: 2, exempt: [])
        do { let result = table.admit("10.0.0.1"); #expect(result) }
        do { let result = table.admit("10.0.0.1"); #expect(result) }
        do { let result = table.admit("10.0.0.1"); #expect(!result) }
        do { let result = table.admit("10.0.0.2"); #expect(result) }
        table.release("10.0.0.1")
        do { let result = table.admit("10.0.0.1"); #expect(result) }
    }

    @Test func releasingTheLastConnectionForgetsTheAddress() {
        var table = AddressConnectionTable(limit: 2, exempt: [])
        do { let result = table.admit("10.0.0.1"); #expect(result) }
        table.release("10.0.0.1")
        #expect(table.counts.isEmpty)
        // A stray release changes nothing.
        table.release("10.0.0.1")
        #expect(table.counts.isEmpty)
    }

    @Test func aReplacementCountsBeyondTheCapUntilTheOneItReplacesIsReleased() {
        var table = AddressConnectionTable(limit: 1, exempt: ["10.0.0.9"])
        do { let result = table.admit("10.0.0.1"); #expect(result) }
        table.admitReplacing("10.0.0.1")
        #expect(table.counts["10.0.0.1"] == 2)
        table.release("10.0.0.1")
        do { let result = table.admit("10.0.0.1"); #expect(!result) }
        table.admitReplacing("10.0.0.9")
        #expect(table.counts["10.0.0.9"] == nil)
    }

    @Test func trustedProxiesAreNotCapped() {
        var table = AddressConnectionTable(limit: 1, exempt: ["10.0.0.9"])
        for _ in 0..<10 {
            let admitted = table.admit("10.0.0.9")
            #expect(admitted)
        }
        #expect(table.counts["10.0.0.9"] == nil)
        table.release("10.0.0.9")
        #expect(table.counts.isEmpty)
    }

    @Test func thePeerAddressLosesItsPort() {
        #expect(AddressConnectionTable.host(ofPeer: "127.0.0.1:51000") == "127.0.0.1")
        #expect(AddressConnectionTable.host(ofPeer: "[::1]:51000") == "::1")
        #expect(AddressConnectionTable.host(ofPeer: "[2001:db8::7]:80") == "2001:db8::7")
        #expect(AddressConnectionTable.host(ofPeer: "unknown") == "unknown")
    }
}
