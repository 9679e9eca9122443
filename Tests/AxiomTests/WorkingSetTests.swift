import Axiom
import Testing

/// The bounded working set the users and carts clients keep (issue 12).
@Suite("Working set")
struct WorkingSetTests {
    @Test("never holds more than its capacity; the entry not used since the hand passed goes first")
    func clockEviction() {
        var set = WorkingSet<Int, String>(capacity: 3)
        for key in 0..<3 { set.store("v\(key)", for: key) }
        #expect(set.lookup(0) == "v0")  // used: gets a second chance
        set.store("v3", for: 3)
        #expect(set.count == 3)
        #expect(set.contains(0) && !set.contains(1) && set.contains(2) && set.contains(3))
        for key in 4..<100 { set.store("v\(key)", for: key) }
        #expect(set.count == 3)
        #expect(Set(set.values) == ["v97", "v98", "v99"])
    }

    @Test("a stored key is replaced in place; removal frees a slot that the next store reuses")
    func replaceAndRemove() {
        var set = WorkingSet<String, Int>(capacity: 2)
        set.store(1, for: "a")
        set.store(2, for: "b")
        set.store(3, for: "a")
        #expect(set.count == 2 && set.lookup("a") == 3)
        #expect(set.remove("b") == 2)
        #expect(set.remove("b") == nil)
        set.store(4, for: "c")
        #expect(set.count == 2 && set.lookup("a") == 3 && set.lookup("c") == 4)
        #expect(set.removeAll { $0 > 3 } == [4])
        #expect(set.count == 1 && set.values == [3])
    }

    @Test("capacity is at least one")
    func minimumCapacity() {
        var set = WorkingSet<Int, Int>(capacity: 0)
        set.store(1, for: 1)
        set.store(2, for: 2)
        #expect(set.capacity == 1 && set.count == 1 && set.lookup(2) == 2)
    }
}
