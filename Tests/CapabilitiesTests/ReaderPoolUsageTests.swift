import AxiomTestSupport
import Dispatch
import Testing
@testable import Capabilities

/// What `axiom_storage_readers` shows: the pool's size, the readers running
/// a read, and the reads queued behind them.
@Suite struct ReaderPoolUsageTests {
    @Test func busyReadersAndQueuedReadsAreCountedWhileTheyLast() async throws {
        let directory = try TempDirectory()
        let storage = try await Fixture.open(directory)  // two readers
        #expect(storage.readerUsage == ReaderPoolUsage(size: 2, busy: 0, waiting: 0))
        let release = DispatchSemaphore(value: 0)
        let reads = (0..<3).map { _ in
            Task { try await storage.read { _ in release.wait() } }
        }
        // Two reads hold both readers; the third waits for one.
        for _ in 0..<500 where storage.readerUsage != ReaderPoolUsage(size: 2, busy: 2, waiting: 1) {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(storage.readerUsage == ReaderPoolUsage(size: 2, busy: 2, waiting: 1))
        for _ in 0..<3 { release.signal() }
        for read in reads { try await read.value }
        // A reader goes back to the pool just after its read's answer.
        for _ in 0..<500 where storage.readerUsage.busy != 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(storage.readerUsage == ReaderPoolUsage(size: 2, busy: 0, waiting: 0))
        await storage.close()
    }
}
