import Synchronization
import Testing
@testable import HTTPServer

/// The event loop without sockets: work handed over from other threads runs
/// on the loop's thread, in order, and a task preferring the loop as its
/// executor resumes there after it suspends.
@Suite struct EventLoopTests {
    @Test func jobsFromOtherThreadsRunOnTheLoopInOrder() async throws {
        let loop = try EventLoop()
        loop.start()
        defer { loop.stop() }
        let seen = Mutex<[(Int, Bool)]>([])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            for index in 0..<100 {
                loop.execute { seen.withLock { $0.append((index, loop.inEventLoop)) } }
            }
            loop.execute { done.resume() }
        }
        let jobs = seen.withLock { $0 }
        #expect(jobs.map { $0.0 } == Array(0..<100))
        #expect(jobs.allSatisfy { $0.1 })
        #expect(!loop.inEventLoop)
    }

    @Test func aTaskOnTheLoopResumesThereAfterSuspending() async throws {
        let loop = try EventLoop()
        loop.start()
        defer { loop.stop() }
        let task = Task(executorPreference: loop) { () -> (Bool, Bool) in
            let before = loop.inEventLoop
            try? await Task.sleep(for: .milliseconds(1))  // resumed from the timer's thread
            return (before, loop.inEventLoop)
        }
        let (before, after) = await task.value
        #expect(before)
        #expect(after)
    }
}
