@testable import Axiom
import Testing

/// The filter behind `WorkingSet.admit`, fed hashes whose two probes are
/// known (first: the low bits; second: first plus the high half, odd), so
/// no false positive can blur what is checked.
@Suite("Doorkeeper")
struct DoorkeeperTests {
    @Test("a key is new on its first note and known on its second")
    func secondNote() {
        var keeper = Doorkeeper(window: 8)
        let notes = [keeper.noteAgain(1), keeper.noteAgain(1), keeper.noteAgain(10), keeper.noteAgain(10),
                     keeper.noteAgain(1)]
        #expect(notes == [false, true, false, true, true])
    }

    @Test("a new note past `window` starts it over, keeping only that note")
    func windowStartsOver() {
        var keeper = Doorkeeper(window: 2)
        // 1 and 10 fill the window (a known key is no new note); 20 starts
        // it over and is kept, so 20 is known and 1 and 10 are new again.
        let notes = [keeper.noteAgain(1), keeper.noteAgain(1), keeper.noteAgain(10), keeper.noteAgain(20),
                     keeper.noteAgain(20), keeper.noteAgain(1)]
        #expect(notes == [false, true, false, false, true, false])
    }

    @Test("the key whose note fills the window is known on its next arrival")
    func lastNoteOfAWindowIsKept() {
        var keeper = Doorkeeper(window: 2)
        let notes = [keeper.noteAgain(1), keeper.noteAgain(10), keeper.noteAgain(10)]
        #expect(notes == [false, false, true])
    }

    @Test("one probe in common is not a match: both must be set")
    func bothProbes() {
        var keeper = Doorkeeper(window: 8)
        // 1 probes bits 1 and 2; (2 << 32) | 1 probes bits 1 and 4.
        let notes = [keeper.noteAgain(1), keeper.noteAgain((2 << 32) | 1), keeper.noteAgain((2 << 32) | 1)]
        #expect(notes == [false, false, true])
    }
}
