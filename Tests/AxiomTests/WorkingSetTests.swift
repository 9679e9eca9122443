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

    @Test("lookups count as hits or misses; a recheck, a peek and a store count nothing")
    func lookupsAreCounted() {
        var set = WorkingSet<Int, String>(capacity: 2)
        #expect(set.lookup(1) == nil)
        set.store("one", for: 1)
        #expect(set.recheck(1) == "one")  // the second look after a miss's turn
        #expect(set.lookup(1) == "one")
        #expect(set.lookup(1) == "one")
        #expect(set.peek(1) == "one" && set.contains(1) && set.recheck(2) == nil)
        #expect(set.usage("things") == WorkingSetUsage(name: "things", entries: 1, capacity: 2, hits: 2, misses: 1))
    }

    @Test("a recheck marks the entry used, as a lookup does")
    func recheckGivesASecondChance() {
        var set = WorkingSet<Int, String>(capacity: 2)
        set.store("a", for: 1)
        set.store("b", for: 2)
        _ = set.recheck(1)
        set.store("c", for: 3)
        #expect(set.contains(1) && !set.contains(2) && set.contains(3))
    }

    @Test("admit keeps freely while there is room or the key is held; once full, a key on its second arrival")
    func admission() {
        var set = WorkingSet<Int, String>(capacity: 2)
        let a = set.admit("a", for: 1), b = set.admit("b", for: 2)
        #expect(a.kept && a.evicted == nil && b.kept && b.evicted == nil)
        // Full, and nothing noted yet: the first arrival of 3 only notes it.
        let first = set.admit("c", for: 3)
        #expect(!first.kept && first.evicted == nil && !set.contains(3) && set.count == 2)
        let held = set.admit("b2", for: 2)
        #expect(held.kept && held.evicted == nil && set.peek(2) == "b2")
        let second = set.admit("c", for: 3)
        #expect(second.kept && second.evicted != nil && set.contains(3) && set.count == 2)
        // `store` is not admission: a write's value is kept at once.
        set.store("d", for: 4)
        #expect(set.contains(4) && set.count == 2)
    }
}
