import Domain
import Testing

/// `Page.slice` with any limit, validated or not: no trap (issue 9's rule
/// that no arithmetic on request numbers may trap).
@Suite struct PageSliceBoundsTests {
    @Test(arguments: [Int.max, Int.min, -1, 0])
    func anyLimitSlicesWithoutTrapping(_ limit: Int) throws {
        let all = ["a", "b", "c"]
        let first = try Page.slice(all, limit: limit, after: nil) { $0 }
        #expect(first.items == (limit > 0 ? all : []))
        #expect(first.nextCursor == nil)
        let rest = try Page.slice(all, limit: limit, after: "a") { $0 }
        #expect(rest.items == (limit > 0 ? ["b", "c"] : []))
    }
}
